package dev.sgm.tck;

import dev.sgm.api.SgmClient;

/** C1–C12 against the engine in this JVM. */
class InProcessCoreConformanceTest extends CoreConformanceTck {
  @Override
  protected SgmClient client() {
    return InProcess.client();
  }
}
