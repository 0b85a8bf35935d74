package dev.sgm.tck;

import dev.sgm.api.SgmClient;

/** The relevance suite against the engine in this JVM. */
class InProcessRelevanceTest extends RelevanceTck {
  @Override
  protected SgmClient client() {
    return InProcess.client();
  }
}
