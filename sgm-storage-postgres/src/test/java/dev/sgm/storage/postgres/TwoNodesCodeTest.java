package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CodeTck;

/** The Code suite over HTTP against two nodes on one PostgreSQL database, alternating per call. */
class TwoNodesCodeTest extends CodeTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.alternating();
  }
}
