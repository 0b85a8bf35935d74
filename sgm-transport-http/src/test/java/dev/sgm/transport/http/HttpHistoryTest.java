package dev.sgm.transport.http;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.HistoryTck;

/** The history suite over HTTP against a real server on loopback. */
class HttpHistoryTest extends HistoryTck {
  @Override
  protected SgmClient client() {
    try {
      return HttpServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
