package dev.sgm.transport.http;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.SecretsTck;

/** The secrets suite over HTTP against a real server on loopback. */
class HttpSecretsTest extends SecretsTck {
  @Override
  protected SgmClient client() {
    try {
      return HttpServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
