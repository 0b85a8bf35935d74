package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.HistoryTck;

/**
 * The History suite over HTTP against two nodes on one PostgreSQL database, alternating per call.
 */
class TwoNodesHistoryTest extends HistoryTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.alternating();
  }
}
