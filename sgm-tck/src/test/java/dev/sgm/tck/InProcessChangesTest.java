package dev.sgm.tck;

import dev.sgm.api.SgmClient;

/** The change feed suite against the engine in this JVM. */
class InProcessChangesTest extends ChangesTck {
  @Override
  protected SgmClient client() {
    return InProcess.client();
  }
}
