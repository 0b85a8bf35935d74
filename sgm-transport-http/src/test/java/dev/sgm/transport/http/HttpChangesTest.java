package dev.sgm.transport.http;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.ChangesTck;

/** The change feed suite over HTTP against a real server on loopback. */
class HttpChangesTest extends ChangesTck {
  @Override
  protected SgmClient client() {
    try {
      return HttpServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
