package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CoreConformanceTck;

/**
 * The core suite (C1–C12) over HTTP against two nodes on one PostgreSQL database, alternating per
 * call.
 */
class TwoNodesCoreConformanceTest extends CoreConformanceTck {
  @Override
  protected SgmClient client() {
    return PostgresServers.alternating();
  }
}
