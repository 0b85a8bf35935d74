package dev.sgm.transport.http;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CollaborationTck;

/** The collaboration suite over HTTP against a real server on loopback. */
class HttpCollaborationTest extends CollaborationTck {
  @Override
  protected SgmClient client() {
    try {
      return HttpServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
