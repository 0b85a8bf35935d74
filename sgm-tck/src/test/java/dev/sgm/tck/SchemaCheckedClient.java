package dev.sgm.tck;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.SgmClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A client that checks every successful response against the {@code response_schema} discovery
 * declares for its operation, as a client that validates tool results would (the MCP TypeScript
 * client checks each result's structuredContent against the tool's outputSchema). A response that
 * does not match fails the call with an {@link AssertionError} naming the operation, the validation
 * messages and the response; it is also kept, so that a mismatch in a thread whose errors are
 * swallowed is still reported by {@link #mismatches()}. Errors the implementation answers with pass
 * through unchanged.
 *
 * <p>The published schemas a declaration refers to by their https://sgm.dev/ ids are read from
 * docs/spec, never fetched. Formats (date-time) are asserted, as AJV with its formats does.
 */
final class SchemaCheckedClient implements SgmClient {
  private static final Path SPEC = Path.of("..", "docs", "spec");

  /** The published schemas by id: their files under docs/spec. */
  private static final Map<String, String> PUBLISHED =
      Map.of(
          JsonSchemas.MEMORY_SCHEMA,
          "memory.schema.json",
          "https://sgm.dev/schema/0.1.0/capability.schema.json",
          "capability.schema.json");

  /** What every client made from one shares: the compiled schemas and what was checked. */
  private static final class Checks {
    private final Map<String, Optional<Schema>> schemas;
    private final Set<String> checked = ConcurrentHashMap.newKeySet();
    private final List<String> mismatches = Collections.synchronizedList(new ArrayList<>());

    Checks(Map<String, Optional<Schema>> schemas) {
      this.schemas = schemas;
    }
  }

  private final SgmClient real;
  private final Checks checks;

  private SchemaCheckedClient(SgmClient real, Checks checks) {
    this.real = real;
    this.checks = checks;
  }

  /** {@code real}, checked against what its own discovery declares. */
  static SchemaCheckedClient of(SgmClient real) {
    return of(real, real.call("discover", Json.object()).path("operations"));
  }

  /** {@code real}, checked against the given operation descriptors (discovery's operations). */
  static SchemaCheckedClient of(SgmClient real, JsonNode operations) {
    SchemaRegistry registry = registry();
    Map<String, Optional<Schema>> schemas = new ConcurrentHashMap<>();
    for (JsonNode operation : operations) {
      JsonNode declared = operation.get("response_schema");
      schemas.put(
          operation.path("name").asText(),
          declared == null || !declared.isObject()
              ? Optional.empty()
              : Optional.of(registry.getSchema(Json.write(declared), InputFormat.JSON)));
    }
    return new SchemaCheckedClient(real, new Checks(schemas));
  }

  /** {@code other} (another caller of the same implementation), checked with this client. */
  SchemaCheckedClient around(SgmClient other) {
    return new SchemaCheckedClient(other, checks);
  }

  /** A registry of draft 2020-12 that finds the published schemas in docs/spec. */
  static SchemaRegistry registry() {
    Map<String, String> published = new java.util.HashMap<>();
    PUBLISHED.forEach(
        (id, file) -> {
          try {
            published.put(id, Files.readString(SPEC.resolve(file)));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
    return SchemaRegistry.withDefaultDialect(
        SpecificationVersion.DRAFT_2020_12,
        builder ->
            builder
                .schemas(published)
                .schemaRegistryConfig(
                    SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));
  }

  @Override
  public JsonNode call(String operation, JsonNode request) {
    JsonNode response = real.call(operation, request);
    check(operation, response);
    return response;
  }

  @Override
  public Optional<ChangeStream> watch(ChangesRequest request) {
    return real.watch(request);
  }

  private void check(String operation, JsonNode response) {
    Optional<Schema> schema = checks.schemas.get(operation);
    String problem;
    if (schema == null) {
      problem = "it is not an operation discovery lists";
    } else if (schema.isEmpty()) {
      problem = "discovery declares no response_schema for it";
    } else {
      List<com.networknt.schema.Error> errors =
          response == null
              ? List.of()
              : schema.get().validate(Json.write(response), InputFormat.JSON);
      if (response != null && errors.isEmpty()) {
        checks.checked.add(operation);
        return;
      }
      problem =
          response == null
              ? "the response is null"
              : "it does not match its response_schema: "
                  + errors.stream().map(com.networknt.schema.Error::toString).toList();
    }
    String message =
        "the response of "
            + operation
            + " fails the check: "
            + problem
            + "\nresponse: "
            + (response == null ? "null" : Json.write(response));
    checks.mismatches.add(message);
    throw new AssertionError(message);
  }

  /** The operations at least one response of which was checked and matched. */
  Set<String> checked() {
    return new TreeSet<>(checks.checked);
  }

  /** Every mismatch so far, each naming the operation, what failed and the response. */
  List<String> mismatches() {
    synchronized (checks.mismatches) {
      return List.copyOf(checks.mismatches);
    }
  }
}
