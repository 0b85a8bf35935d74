package dev.sgm.tck;

import dev.sgm.api.SgmClient;

/** The secrets suite against the engine in this JVM. */
class InProcessSecretsTest extends SecretsTck {
  @Override
  protected SgmClient client() {
    return InProcess.client();
  }
}
