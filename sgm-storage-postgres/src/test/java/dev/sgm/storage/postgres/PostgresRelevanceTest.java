package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.RelevanceTck;

/** The Relevance suite over HTTP against a server node on PostgreSQL. */
class PostgresRelevanceTest extends RelevanceTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.single();
  }
}
