package dev.sgm.example.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.tck.KitRunner;
import dev.sgm.tck.ProfileSuite;
import dev.sgm.tck.Requirement;
import dev.sgm.tck.TckSupport;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite of the example profile (sgm-test-plugin), written as a third party writes
 * one, against the kit's public types only, and found by the kit through {@link ProfileSuite}:
 * {@code example.greet} greets by name and counts the {@code greeting} records kept in a scope, and
 * a greeting's {@code data.text} must be a non-empty string.
 *
 * <p>The plugin ships it: with the kit present ({@code sgm tck}), the kit runs it against any
 * server that advertises {@code example}; without the kit, nothing loads it (the plugin reads the
 * kit and JUnit only if they are there).
 */
public final class ExampleSuite extends TckSupport implements ProfileSuite {
  @Override
  public String capability() {
    return "example";
  }

  @Override
  protected SgmClient client() {
    return KitRunner.target();
  }

  private JsonNode greet(ObjectNode scope, String name) {
    ObjectNode request = Json.object();
    request.set("scope", scope.deepCopy());
    request.put("name", name);
    return call("example.greet", request);
  }

  private static ObjectNode greeting(String id, ObjectNode scope, JsonNode text) {
    ObjectNode record = record(id, "greeting", scope);
    ObjectNode data = record.putObject("data");
    if (text != null) {
      data.set("text", text);
    }
    return record;
  }

  @Test
  @DisplayName("example.greet greets the name it is given")
  @Requirement(rule = "example.greet")
  void greet_greetsByName() {
    ObjectNode scope = scope("project", unique("example"));
    assertEquals("Hello, Ada!", greet(scope, "Ada").path("greeting").asText());
    assertEquals("Hello, Grace Hopper!", greet(scope, "Grace Hopper").path("greeting").asText());
  }

  @Test
  @DisplayName("example.greet counts the greetings kept in its scope, and only those")
  @Requirement(rule = "example.greet")
  void greet_countsTheGreetingsKeptInTheScope() {
    ObjectNode scope = scope("project", unique("example"));
    assertEquals(0, greet(scope, "Ada").path("greetings_kept").asLong(), "none kept yet");
    store(greeting("g1", scope, TextNode.valueOf("Hello")));
    store(greeting("g2", scope, TextNode.valueOf("Hi there")));
    ObjectNode note = record("n1", "note", scope);
    note.put("content", "Not a greeting");
    store(note);
    store(greeting("g1", scope("project", unique("example")), TextNode.valueOf("Elsewhere")));
    assertEquals(
        2,
        greet(scope, "Ada").path("greetings_kept").asLong(),
        "the scope's greetings, not its other records nor another scope's greetings");
  }

  @Test
  @DisplayName("a greeting's data.text must be a non-empty string: invalid_record naming it")
  @Requirement(rule = "example greeting")
  void greeting_textIsValidated() {
    ObjectNode scope = scope("project", unique("example"));
    for (JsonNode text : List.of(TextNode.valueOf(""), IntNode.valueOf(5))) {
      expectError(ErrorCode.INVALID_RECORD, "data.text", () -> store(greeting("bad", scope, text)));
    }
    expectError(ErrorCode.INVALID_RECORD, "data.text", () -> store(greeting("bad", scope, null)));
    assertEquals(0, greet(scope, "Ada").path("greetings_kept").asLong(), "none was kept");
  }

  @Test
  @DisplayName("example.greet without a name is invalid_request naming 'name'")
  @Requirement(rule = "example.greet")
  void greet_needsAName() {
    ObjectNode request = Json.object();
    request.set("scope", scope("project", unique("example")));
    expectError(ErrorCode.INVALID_REQUEST, "name", () -> call("example.greet", request));
  }
}
