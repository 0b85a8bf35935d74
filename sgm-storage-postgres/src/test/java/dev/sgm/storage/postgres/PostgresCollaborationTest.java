package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CollaborationTck;

/** The Collaboration suite over HTTP against a server node on PostgreSQL. */
class PostgresCollaborationTest extends CollaborationTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.single();
  }
}
