package dev.sgm.transport.http;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.ContractTck;

/** The contract suite over HTTP against a real server on loopback. */
class HttpContractTest extends ContractTck {
  @Override
  protected SgmClient client() {
    try {
      return HttpServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
