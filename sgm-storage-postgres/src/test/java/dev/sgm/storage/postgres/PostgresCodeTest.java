package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CodeTck;

/** The Code suite over HTTP against a server node on PostgreSQL. */
class PostgresCodeTest extends CodeTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.single();
  }
}
