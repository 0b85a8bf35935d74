package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CoreConformanceTck;

/** The core suite (C1–C12) over HTTP against a server node on PostgreSQL. */
class PostgresCoreConformanceTest extends CoreConformanceTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.single();
  }
}
