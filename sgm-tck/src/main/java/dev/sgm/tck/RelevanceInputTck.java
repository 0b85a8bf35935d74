package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's §3 "Relevance" rules on what a search request may hold: a known {@code mode}, one
 * that an embedding model backs, {@code text} that is not blank, and a bound on the work a huge
 * text causes.
 */
public abstract class RelevanceInputTck extends RelevanceWritesTck {
  @Test
  @DisplayName("§3 an unknown mode is invalid_request naming 'mode'")
  @Requirement(rule = "§3 relevance")
  void relevance_unknownModeIsInvalid() {
    ObjectNode scope = scope("project", unique("rel"));
    store(note(scope, "r", "The build uses Maven"));
    for (String request :
        List.of("{'text': 'maven', 'mode': 'fuzzy'}", "{'text': 'maven', 'mode': 3}")) {
      ObjectNode query = json(request);
      query.set("scope", scope);
      expectError(ErrorCode.INVALID_REQUEST, "mode", () -> retrieve(query));
    }
  }

  @Test
  @DisplayName("§3 semantic or hybrid without an embedding model is unsupported_capability")
  @Requirement(rule = "§3 relevance")
  void relevance_semanticWithoutAnEmbedderIsUnsupported() {
    Retrieval retrieval = retrieval();
    Assumptions.assumeFalse(
        retrieval.modes().contains(SEMANTIC) || retrieval.modes().contains(HYBRID),
        "the implementation has an embedding model");
    ObjectNode scope = scope("project", unique("rel"));
    store(note(scope, "r", "The build uses Maven"));
    for (String mode : List.of(SEMANTIC, HYBRID)) {
      ObjectNode query = json("{'text': 'maven'}");
      query.set("scope", scope);
      query.put("mode", mode);
      expectError(ErrorCode.UNSUPPORTED_CAPABILITY, () -> retrieve(query));
    }
  }

  @Test
  @DisplayName("§3 empty or whitespace text is invalid_request naming 'text'")
  @Requirement(rule = "§3 relevance")
  void relevance_blankTextIsInvalid() {
    ObjectNode scope = scope("project", unique("rel"));
    for (String text : List.of("", "   ", "\t\n ")) {
      ObjectNode query = Json.object();
      query.set("scope", scope);
      query.put("text", text);
      expectError(ErrorCode.INVALID_REQUEST, TEXT, () -> retrieve(query));
    }
  }

  @Test
  @DisplayName("§3 a 100 KB text answers promptly with too_large or a truncation it states")
  @Requirement(rule = "§3 relevance")
  void relevance_hugeTextIsBounded() {
    ObjectNode scope = scope("project", unique("rel"));
    store(note(scope, "r", "The build uses Maven"));
    StringBuilder text = new StringBuilder("maven");
    for (int i = 0; text.length() < 100 * 1024; i++) {
      text.append(" word").append(i);
    }
    for (String mode : retrieval().modes()) {
      JsonNode response =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () -> {
                try {
                  return retrieve(query(scope, text.toString(), mode));
                } catch (SgmException e) {
                  if (e.code() != ErrorCode.TOO_LARGE) {
                    fail(
                        mode
                            + ": either too_large or an answer, not "
                            + e.code().wireName()
                            + ": "
                            + e.getMessage());
                  }
                  return null;
                }
              },
              mode + ": the work is bounded");
      if (response != null) {
        ObjectNode statement = ((ObjectNode) response).deepCopy();
        statement.remove("records");
        assertTrue(
            Json.write(statement).toLowerCase(Locale.ROOT).contains("truncat"),
            mode + ": an answer to a 100 KB text says it was truncated: " + statement);
      }
    }
  }
}
