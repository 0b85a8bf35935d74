package dev.sgm.embedding.pair;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import dev.sgm.tck.RelevanceTck;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The relevance suite against the engine with this embedding model active (it comes before bge
 * alone, which is on the class path too), so that the semantic and hybrid rules run with it.
 */
class SemanticRelevanceTest extends RelevanceTck {
  private static SgmRuntime runtime;

  private static synchronized SgmRuntime runtime() {
    if (runtime == null) {
      runtime =
          SgmRuntime.open(ConfigLoader.load(Map.of(ConfigLoader.STORAGE_MEMORY, "true"), Map.of()));
    }
    return runtime;
  }

  @Test
  void theSuiteRunsWithBothModelsActive() {
    assertEquals(
        "bge-small-en-v1.5-q+e5-small-v2-q",
        discovery().path("retrieval").path("embedding").path("model").asText());
  }

  @AfterAll
  static synchronized void close() {
    if (runtime != null) {
      runtime.close();
      runtime = null;
    }
  }

  @Override
  protected SgmClient client() {
    SgmRuntime sgm = runtime();
    return (operation, request) -> {
      JsonNode wireRequest = Json.parse(Json.write(request));
      try {
        return Json.parse(
            Json.write(sgm.service().invoke(Caller.embedded(), operation, wireRequest)));
      } catch (SgmException e) {
        throw SgmException.fromJson(Json.parse(Json.write(e.toJson())));
      }
    };
  }
}
