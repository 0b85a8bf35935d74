package dev.sgm.example;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.RequestReader;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.DataFields;
import dev.sgm.api.spi.Profile;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.ProfileProvider;
import dev.sgm.api.spi.RecordType;
import dev.sgm.api.spi.SecretDetector;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Provides the {@code example} profile: {@code greeting} records, whose {@code data.text} must be a
 * non-empty string, and {@code example.greet}, which greets a name and counts the greetings kept in
 * a scope; and a detector of {@code exmpl_} tokens, which fails on purpose on text that says
 * {@value #BREAK_DETECTOR} (how tests see a failing detector fail a write closed).
 */
public final class ExampleProfileProvider implements ProfileProvider {
  /** Text that makes the example's secret detector throw. */
  public static final String BREAK_DETECTOR = "break-the-example-detector";

  /** The example's tokens: {@code exmpl_} and 16 lowercase hexadecimal digits. */
  private static final Pattern TOKEN = Pattern.compile("\\bexmpl_[0-9a-f]{16}\\b");

  @Override
  public String name() {
    return "example";
  }

  @Override
  public Profile create(Config config, ProfileContext context) {
    return new Profile() {
      @Override
      public List<String> features() {
        return List.of("greetings");
      }

      @Override
      public List<RecordType> recordTypes() {
        return List.of(
            new RecordType(
                "greeting",
                JsonSchemas.object()
                    .description("A greeting someone left.")
                    .required("text", JsonSchemas.text("What it says."))
                    .build()));
      }

      @Override
      public List<SecretDetector> secretDetectors() {
        return List.of(
            new SecretDetector() {
              @Override
              public List<String> kinds() {
                return List.of("example_token");
              }

              @Override
              public List<Match> find(String text) {
                if (text.contains(BREAK_DETECTOR)) {
                  throw new IllegalStateException("the example detector broke, as asked");
                }
                Matcher matcher = TOKEN.matcher(text);
                List<Match> found = new ArrayList<>();
                while (matcher.find()) {
                  found.add(new Match("example_token", matcher.start(), matcher.end()));
                }
                return found;
              }
            });
      }

      @Override
      public void validate(ObjectNode record) {
        ObjectNode data = DataFields.data(record);
        DataFields.text(data, "text", "data.text", true);
      }

      @Override
      public List<ProfileOperation> operations() {
        return List.of(
            ProfileOperation.named("example.greet")
                .title("Greet someone")
                .description("Greets a name and counts the greetings kept in a scope.")
                .request(
                    JsonSchemas.object()
                        .additionalProperties(false)
                        .required("scope", JsonSchemas.scope("Where the greetings are kept."))
                        .required("name", JsonSchemas.text("Whom to greet."))
                        .optional(
                            "wait_for",
                            JsonSchemas.text(
                                "A file the answer waits for, after creating <wait_for>.waiting:"
                                    + " how tests hold a call in flight."))
                        .build())
                .response(
                    JsonSchemas.object()
                        .required("greeting", JsonSchemas.text("The greeting, e.g. Hello, Ada!"))
                        .required(
                            "greetings_kept",
                            Json.object()
                                .put("type", "integer")
                                .put("minimum", 0)
                                .put("description", "How many greeting records the scope holds."))
                        .build())
                .readOnly()
                .body((caller, request) -> greet(context, caller, request)));
      }
    };
  }

  private static JsonNode greet(ProfileContext context, Caller caller, JsonNode request) {
    RequestReader reader = RequestReader.of(request);
    Scope scope = reader.requireScope("scope");
    String name = reader.requireString("name");
    String waitFor = reader.optionalString("wait_for");
    reader.finish();
    if (waitFor != null) {
      awaitFile(Path.of(waitFor));
    }
    long kept =
        context
            .service()
            .retrieve(
                caller, RetrieveQuery.builder(scope).types(List.of("greeting")).limit(1).build())
            .total();
    ObjectNode response = Json.object();
    response.put("greeting", "Hello, " + name + "!");
    response.put("greetings_kept", kept);
    return response;
  }

  /** Says it is waiting (a file beside {@code file}), then waits until {@code file} exists. */
  private static void awaitFile(Path file) {
    try {
      Files.writeString(file.resolveSibling(file.getFileName() + ".waiting"), "");
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (!Files.exists(file)) {
        if (System.nanoTime() > deadline) {
          throw new SgmException(ErrorCode.UNAVAILABLE, "wait_for: " + file + " did not appear");
        }
        Thread.sleep(20);
      }
    } catch (IOException e) {
      throw SgmException.invalidRequest("wait_for", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted while waiting");
    }
  }
}
