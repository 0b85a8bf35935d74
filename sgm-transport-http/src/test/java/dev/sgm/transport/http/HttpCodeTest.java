package dev.sgm.transport.http;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CodeTck;

/** The code suite over HTTP against a real server on loopback. */
class HttpCodeTest extends CodeTck {
  @Override
  protected SgmClient client() {
    try {
      return HttpServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
