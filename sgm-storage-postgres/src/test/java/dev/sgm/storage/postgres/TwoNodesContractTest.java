package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.ContractTck;

/**
 * The Contract suite over HTTP against two nodes on one PostgreSQL database, alternating per call.
 */
class TwoNodesContractTest extends ContractTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.alternating();
  }
}
