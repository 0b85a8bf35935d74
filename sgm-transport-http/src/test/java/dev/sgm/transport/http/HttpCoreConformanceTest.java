package dev.sgm.transport.http;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CoreConformanceTck;

/** C1–C12 over HTTP against a real server on loopback. */
class HttpCoreConformanceTest extends CoreConformanceTck {
  @Override
  protected SgmClient client() {
    try {
      return HttpServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
