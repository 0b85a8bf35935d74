package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.ChangesTck;

/**
 * The change feed suite over HTTP against two nodes on one PostgreSQL database, alternating per
 * call: a cursor from one node resumes at the other.
 */
class TwoNodesChangesTest extends ChangesTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.alternating();
  }
}
