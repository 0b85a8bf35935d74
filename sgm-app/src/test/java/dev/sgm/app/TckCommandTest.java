package dev.sgm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.BatchStoreResult;
import dev.sgm.api.Caller;
import dev.sgm.api.ContentReference;
import dev.sgm.api.DeleteRequest;
import dev.sgm.api.DeleteResult;
import dev.sgm.api.DiscoverRequest;
import dev.sgm.api.DiscoveryDocument;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.PutContentRequest;
import dev.sgm.api.ReadRequest;
import dev.sgm.api.ReadResult;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.RetrieveResult;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import dev.sgm.api.StoreRequest;
import dev.sgm.api.StoreResult;
import dev.sgm.api.StoredContent;
import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import dev.sgm.transport.http.HttpSettings;
import dev.sgm.transport.http.HttpTransport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code sgm tck} passes against this server and names the broken rule of a broken one. */
class TckCommandTest {
  private record Run(int code, String out, String err) {}

  private static Run tck(String... args) {
    CommandLine commandLine = Sgm.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    int code = commandLine.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  private static SgmRuntime runtime() {
    return SgmRuntime.open(
        ConfigLoader.load(
            Map.of(
                ConfigLoader.STORAGE_MEMORY,
                "true",
                "http.port",
                "0",
                "http.log-requests",
                "false"),
            Map.of()));
  }

  @Test
  void ourServerPassesAndJUnitReportsAreWritten(@TempDir Path reports) throws Exception {
    try (SgmRuntime sgm = runtime()) {
      String url = null;
      for (Transport transport : sgm.startTransports()) {
        if (transport instanceof HttpTransport http) {
          url = http.endpoints().get(0);
        }
      }
      Run run = tck("tck", url, "--junit", reports.toString());
      assertEquals(0, run.code(), run.out() + run.err());
      assertTrue(run.out().contains("PASS MUST   C5"), run.out());
      // Which suites ran, in the order of the verdict, and how many rules each has.
      String further = " this project's further rules): conforming (";
      // Without an embedding model, relevance's semantic and hybrid rules skip with the reason.
      assertEquals(
          List.of(
              "suite core (C1-C12, docs/spec): conforming (12 passed, 0 failed, 0 skipped)",
              "suite collaboration profile: conforming (10 passed, 0 failed, 0 skipped)",
              "suite code profile: conforming (6 passed, 0 failed, 0 skipped)",
              "suite history profile: conforming (9 passed, 0 failed, 0 skipped)",
              "suite change feed (docs/spec/changes.md, this project's further rules): conforming"
                  + " (11 passed, 0 failed, 0 skipped)",
              "suite relevance (docs/spec/retrieval.md, this project's further rules): conforming"
                  + " (28 passed, 0 failed, 3 skipped)",
              "suite the record (docs/spec/memory-model.md,"
                  + further
                  + "10 passed, 0 failed, 0 skipped)",
              "suite scope and identity (docs/spec/scopes.md,"
                  + further
                  + "6 passed, 0 failed, 0 skipped)",
              "suite operations (docs/spec/memory-model.md,"
                  + further
                  + "15 passed, 0 failed, 0 skipped)",
              "suite discovery (docs/spec/discovery.md,"
                  + further
                  + "2 passed, 0 failed, 0 skipped)",
              "suite errors (docs/spec/errors.md," + further + "50 passed, 0 failed, 0 skipped)",
              "tck: 159 passed, 0 failed, 3 skipped",
              "verdict: conforming: every rule that ran passed"),
          verdicts(run),
          run.out());
      assertTrue(
          run.out()
              .lines()
              .anyMatch(
                  l ->
                      l.startsWith("SKIP MUST   §3 relevance ")
                          && l.contains("semantic mode finds")
                          && l.endsWith(
                              " -- the implementation does not advertise the retrieval mode"
                                  + " 'semantic'")),
          "a skipped rule is listed with its reason: " + run.out());
      try (Stream<Path> files = Files.list(reports)) {
        assertTrue(files.anyMatch(p -> p.getFileName().toString().endsWith(".xml")), "JUnit XML");
      }
    }
  }

  /** The verdict lines of a run: a line per suite, the counts, and the verdict. */
  private static List<String> verdicts(Run run) {
    return run.out()
        .lines()
        .filter(l -> l.startsWith("suite ") || l.startsWith("tck: ") || l.startsWith("verdict: "))
        .toList();
  }

  /** {@code sgm tck} against this project's server served over HTTP through {@code tamper}. */
  private static Run tckThrough(Tamper tamper) throws Exception {
    try (SgmRuntime sgm = runtime()) {
      HttpTransport tampered =
          new HttpTransport(
              new HttpSettings("127.0.0.1", 0, 4L * 1024 * 1024, false, 1000),
              new TamperedService(sgm.service(), tamper));
      tampered.start();
      try {
        return tck("tck", tampered.endpoints().get(0));
      } finally {
        tampered.close();
      }
    }
  }

  private static final Set<String> KNOWN_TYPES =
      Set.of("fact", "note", "decision", "rule", "status", "task", "handoff", "annotation");

  @Test
  void aBrokenServerIsReportedByRule() throws Exception {
    // Records of unknown types stored as notes: breaks C4 and nothing else of the core.
    Run run =
        tckThrough(
            (operation, request, real) -> {
              if (operation.equals("store") && request.path("record").isObject()) {
                ObjectNode record = (ObjectNode) request.get("record");
                if (!KNOWN_TYPES.contains(record.path("type").asText())) {
                  record.put("type", "note");
                }
              }
              return real.apply(request);
            });
    assertEquals(1, run.code(), "a seed core case failed: " + run.out());
    assertTrue(run.out().contains("FAIL MUST   C4"), run.out());
    assertTrue(
        run.out().contains("suite core (C1-C12, docs/spec): NOT CONFORMING (11 passed, 1 failed"),
        run.out());
    assertTrue(run.out().contains("PASS MUST   C5"), "unbroken rules still pass: " + run.out());
    assertTrue(run.out().contains("verdict: NOT CONFORMING: the core case C4 failed"), run.out());
  }

  @Test
  void withoutRetrievalTheRelevanceSuiteIsSkippedAndFurtherRulesDoNotDecideTheExitCode()
      throws Exception {
    // Discovery without 'retrieval' (which the contract does not require) and without
    // 'supported_versions' (which it does: a further rule of §4).
    Run run =
        tckThrough(
            (operation, request, real) -> {
              JsonNode response = real.apply(request);
              if (operation.equals("discover")) {
                ((ObjectNode) response).remove(List.of("retrieval", "supported_versions"));
              }
              return response;
            });
    assertEquals(0, run.code(), "the core and every profile passed: " + run.out());
    List<String> verdicts = verdicts(run);
    assertTrue(
        verdicts.contains(
            "suite relevance (docs/spec/retrieval.md, this project's further rules): not run: the"
                + " implementation does not advertise 'retrieval' in discovery"
                + " (0 passed, 0 failed, 31 skipped)"),
        run.out());
    assertTrue(
        verdicts.contains(
            "suite discovery (docs/spec/discovery.md, this project's further rules): NOT CONFORMING"
                + " (1 passed, 1 failed, 0 skipped)"),
        run.out());
    assertTrue(
        verdicts.contains(
            "verdict: conforming: the core cases and every advertised profile passed;"
                + " 1 of this project's further rules failed"),
        run.out());
  }

  @Test
  void aFailingAdvertisedProfileIsExitCode9() throws Exception {
    Run run =
        tckThrough(
            (operation, request, real) -> {
              if (operation.equals("history.versions")) {
                throw new SgmException(ErrorCode.INTERNAL, "the versions are lost");
              }
              return real.apply(request);
            });
    assertEquals(9, run.code(), run.out());
    List<String> verdicts = verdicts(run);
    assertTrue(
        verdicts.contains(
            "suite core (C1-C12, docs/spec): conforming (12 passed, 0 failed, 0 skipped)"),
        run.out());
    assertTrue(
        verdicts.stream().anyMatch(l -> l.startsWith("suite history profile: NOT CONFORMING (")),
        run.out());
    assertTrue(
        verdicts.contains(
            "verdict: NOT CONFORMING: the core cases passed, but the advertised history"
                + " profile failed"),
        run.out());
  }

  /** How a test server changes this project's answers: {@code real} is the honest service. */
  private interface Tamper {
    JsonNode invoke(String operation, JsonNode request, UnaryOperator<JsonNode> real);
  }

  /** This project's service, with every JSON operation passed through a {@link Tamper}. */
  private record TamperedService(SgmService real, Tamper tamper) implements SgmService {
    @Override
    public JsonNode invoke(Caller caller, String operation, JsonNode request) {
      return tamper.invoke(operation, request, r -> real.invoke(caller, operation, r));
    }

    @Override
    public List<String> operations() {
      return real.operations().stream().filter(op -> !op.contains(".")).toList();
    }

    @Override
    public DiscoveryDocument discover(Caller caller, DiscoverRequest request) {
      return real.discover(caller, request);
    }

    @Override
    public StoreResult store(Caller caller, StoreRequest request) {
      return real.store(caller, request);
    }

    @Override
    public BatchStoreResult storeBatch(Caller caller, BatchStoreRequest request) {
      return real.storeBatch(caller, request);
    }

    @Override
    public ReadResult read(Caller caller, ReadRequest request) {
      return real.read(caller, request);
    }

    @Override
    public RetrieveResult retrieve(Caller caller, RetrieveQuery query) {
      return real.retrieve(caller, query);
    }

    @Override
    public DeleteResult delete(Caller caller, DeleteRequest request) {
      return real.delete(caller, request);
    }

    @Override
    public ContentReference putContent(Caller caller, PutContentRequest request) {
      return real.putContent(caller, request);
    }

    @Override
    public Optional<StoredContent> getContent(Caller caller, String hash) {
      return real.getContent(caller, hash);
    }
  }
}
