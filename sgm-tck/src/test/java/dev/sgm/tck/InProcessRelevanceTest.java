package dev.sgm.tck;

import dev.sgm.api.SgmClient;
import org.junit.jupiter.api.Disabled;

/** The relevance suite against the engine in this JVM. */
@Disabled("enabled when the Lucene index lands")
class InProcessRelevanceTest extends RelevanceTck {
  @Override
  protected SgmClient client() {
    return InProcess.client();
  }
}
