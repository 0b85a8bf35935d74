package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.HistoryTck;

/** The History suite over HTTP against a server node on PostgreSQL. */
class PostgresHistoryTest extends HistoryTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.single();
  }
}
