package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CollaborationTck;

/**
 * The Collaboration suite over HTTP against two nodes on one PostgreSQL database, alternating per
 * call.
 */
class TwoNodesCollaborationTest extends CollaborationTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.alternating();
  }
}
