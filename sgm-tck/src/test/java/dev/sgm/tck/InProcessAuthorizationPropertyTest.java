package dev.sgm.tck;

import dev.sgm.api.SgmClient;

/** The authorization property suite against the engine in this JVM, with authentication on. */
class InProcessAuthorizationPropertyTest extends AuthorizationPropertyTck {
  @Override
  protected SgmClient client() {
    return InProcess.authenticatingOwner();
  }

  @Override
  protected SgmClient clientWithToken(String token) {
    return InProcess.withToken(token);
  }
}
