package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.FieldError;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The spec's corpus of valid and invalid records, checked against both the published JSON Schema
 * and the engine, so that the schema, the documents and the code cannot drift apart.
 */
class SpecCorpusTest {
  private static final Path SPEC = Path.of("..", "docs", "spec");
  private static SgmRuntime sgm;

  @BeforeAll
  static void open() {
    sgm = TestRuntimes.open();
  }

  @AfterAll
  static void close() {
    sgm.close();
  }

  private static Schema schema(String file) throws IOException {
    return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
        .getSchema(Files.readString(SPEC.resolve(file)), InputFormat.JSON);
  }

  static Stream<Path> valid() throws IOException {
    return corpus("valid");
  }

  static Stream<Path> invalid() throws IOException {
    return corpus("invalid");
  }

  private static Stream<Path> corpus(String kind) throws IOException {
    try (Stream<Path> files = Files.list(SPEC.resolve("corpus").resolve(kind))) {
      List<Path> list = files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
      return list.stream();
    }
  }

  @Test
  void theCorpusIsLargeEnough() throws IOException {
    assertTrue(valid().count() >= 12);
    assertTrue(invalid().count() >= 20);
  }

  @ParameterizedTest
  @MethodSource("valid")
  void aValidRecordPassesTheSchemaAndIsStoredLosslessly(Path file) throws IOException {
    String text = Files.readString(file);
    assertEquals(List.of(), schema("memory.schema.json").validate(text, InputFormat.JSON));
    JsonNode record = Json.parse(text);
    JsonNode stored =
        sgm.service()
            .invoke(Caller.embedded(), "store", Json.object().set("record", record))
            .path("record");
    JsonNode read =
        sgm.service()
            .invoke(
                Caller.embedded(),
                "read",
                Json.object()
                    .<com.fasterxml.jackson.databind.node.ObjectNode>set(
                        "scope", record.get("scope"))
                    .put("id", record.get("id").asText()))
            .path("record");
    assertEquals(Json.write(stored), Json.write(read));
    for (Map.Entry<String, JsonNode> field : record.properties()) {
      if (field.getKey().equals("provenance")) {
        for (Map.Entry<String, JsonNode> p : field.getValue().properties()) {
          assertEquals(
              Json.write(p.getValue()),
              Json.write(read.path("provenance").get(p.getKey())),
              p.getKey());
        }
      } else if (!field.getKey().equals("version") && !field.getKey().equals("updated_at")) {
        assertEquals(
            Json.write(field.getValue()), Json.write(read.get(field.getKey())), field.getKey());
      }
    }
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void anInvalidRecordFailsTheSchemaAndIsRefusedNamingItsField(Path file) throws IOException {
    JsonNode testCase = Json.parse(Files.readString(file));
    String field = testCase.path("field").asText();
    String record = Json.write(testCase.path("record"));
    assertFalse(
        schema("memory.schema.json").validate(record, InputFormat.JSON).isEmpty(),
        "schema refuses it");
    SgmException e =
        assertThrows(
            SgmException.class,
            () ->
                sgm.service()
                    .invoke(
                        Caller.embedded(),
                        "store",
                        Json.object().set("record", testCase.path("record"))));
    assertEquals(ErrorCode.INVALID_RECORD, e.code(), e.getMessage());
    assertTrue(
        e.details().stream()
            .map(FieldError::field)
            .anyMatch(
                f -> f.equals(field) || f.startsWith(field + ".") || f.startsWith(field + "[")),
        () -> "expected the field " + field + " in " + e.details());
  }

  @Test
  void theDiscoveryDocumentMatchesItsSchema() throws IOException {
    assertEquals(
        List.of(),
        schema("capability.schema.json")
            .validate(Json.write(sgm.discovery().toJson()), InputFormat.JSON));
  }
}
