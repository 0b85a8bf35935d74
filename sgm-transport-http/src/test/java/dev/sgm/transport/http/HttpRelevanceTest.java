package dev.sgm.transport.http;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.RelevanceTck;

/** The relevance suite over HTTP against a real server on loopback. */
class HttpRelevanceTest extends RelevanceTck {
  @Override
  protected SgmClient client() {
    try {
      return HttpServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
