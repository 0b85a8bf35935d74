package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.ContractTck;

/** The Contract suite over HTTP against a server node on PostgreSQL. */
class PostgresContractTest extends ContractTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.single();
  }
}
