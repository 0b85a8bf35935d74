package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.RelevanceTck;

/**
 * The Relevance suite over HTTP against two nodes on one PostgreSQL database, alternating per call.
 */
class TwoNodesRelevanceTest extends RelevanceTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.alternating();
  }
}
