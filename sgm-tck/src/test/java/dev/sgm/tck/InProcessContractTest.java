package dev.sgm.tck;

import dev.sgm.api.SgmClient;

/** The contract suite against the engine in this JVM. */
class InProcessContractTest extends ContractTck {
  @Override
  protected SgmClient client() {
    return InProcess.client();
  }
}
