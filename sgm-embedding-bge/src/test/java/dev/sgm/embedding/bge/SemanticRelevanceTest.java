package dev.sgm.embedding.bge;

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

/**
 * The relevance suite against the engine with this embedding model active, so that the semantic and
 * hybrid rules run (elsewhere no model is present and they are skipped).
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
