package dev.sgm.tck;

/** The contract suite against the engine in this JVM. */
class InProcessContractTest extends ContractTck {
  @Override
  protected SgmClient client() {
    return InProcess.client();
  }
}
