package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.ChangesTck;

/** The change feed suite over HTTP against a server node on PostgreSQL. */
class PostgresChangesTest extends ChangesTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.single();
  }
}
