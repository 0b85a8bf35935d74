package dev.sgm.tck;

import dev.sgm.api.SgmClient;

/** The code suite against the engine in this JVM, with the code profile on the class path. */
class InProcessCodeTest extends CodeTck {
  @Override
  protected SgmClient client() {
    return InProcess.client();
  }
}
