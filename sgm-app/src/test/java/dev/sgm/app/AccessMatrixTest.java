package dev.sgm.app;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.ClientProvider;
import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A generated access matrix over real servers: principals with random grant sets and clearances,
 * every core read and write, every scope mode with and without text, over HTTP, gRPC, MCP and the
 * command line. Each case is allowed or denied as a model of CONTRACT §8 says, and no answer holds
 * an id, a count or a content marker of a record the principal may not see.
 */
class AccessMatrixTest {
  private static final List<Map<String, String>> SCOPES =
      List.of(
          Map.of("project", "a"),
          Map.of("project", "a", "session", "s1"),
          Map.of("project", "a", "session", "s2"),
          Map.of("project", "b"),
          Map.of("project", "b", "session", "s1"),
          Map.of("project", "c"));
  private static final List<String> MODES = List.of("exact", "descendants", "ancestors", "lineage");

  /** A seeded record: its scope, id, level, and the marker only its content holds. */
  private record Seeded(Map<String, String> scope, String id, Sensitivity level) {
    String marker() {
      return "zq" + id.replace("-", "") + "marker";
    }
  }

  private record Principal(
      String name, List<Grants.Grant> grants, Sensitivity clearance, String token) {
    boolean reads(Map<String, String> scope) {
      return grants.stream()
          .anyMatch(g -> scope.entrySet().containsAll(g.scope().pairs().entrySet()));
    }

    boolean writes(Map<String, String> scope) {
      return grants.stream()
          .anyMatch(
              g ->
                  g.access() == Grants.Access.READ_WRITE
                      && scope.entrySet().containsAll(g.scope().pairs().entrySet()));
    }

    boolean cleared(Sensitivity level) {
      return level.compareTo(clearance) <= 0;
    }
  }

  @Test
  void everyCaseIsAllowedOrDeniedAsTheModelSaysAndNothingLeaks() throws Exception {
    Map<String, String> options = new LinkedHashMap<>();
    options.put(ConfigLoader.STORAGE_MEMORY, "true");
    options.put("auth.enabled", "true");
    options.put("http.port", "0");
    options.put("grpc.port", "0");
    options.put("mcp.port", "0");
    options.put("http.log-requests", "false");
    try (SgmRuntime runtime = SgmRuntime.open(ConfigLoader.load(options, Map.of()))) {
      Map<String, String> urls = new LinkedHashMap<>();
      for (Transport transport : runtime.startTransports()) {
        if (transport.endpoints().isEmpty()) {
          continue; // the command line is a transport without a network endpoint
        }
        String endpoint = transport.endpoints().get(0);
        urls.put(
            endpoint.startsWith("grpc") ? "grpc" : endpoint.endsWith("/mcp") ? "mcp" : "http",
            endpoint.endsWith("/mcp") ? "mcp+" + endpoint : endpoint);
      }
      List<Seeded> seeded = seed(runtime);
      Random random = new Random(15);
      List<Principal> principals = new ArrayList<>();
      for (int p = 0; p < 8; p++) {
        List<Grants.Grant> grants = new ArrayList<>();
        int count = 1 + random.nextInt(3);
        for (int g = 0; g < count; g++) {
          Map<String, String> scope = SCOPES.get(random.nextInt(SCOPES.size()));
          grants.add(
              new Grants.Grant(
                  dev.sgm.api.Scope.of(scope),
                  random.nextBoolean() ? Grants.Access.READ : Grants.Access.READ_WRITE));
        }
        Sensitivity clearance = Sensitivity.values()[random.nextInt(4)];
        String token =
            runtime.tokens().create("p" + p, grants, Set.of("*"), clearance, null).token();
        principals.add(new Principal("p" + p, grants, clearance, token));
      }
      int cases = 0;
      int[] denials = {0};
      List<String> failures = new ArrayList<>();
      for (Principal principal : principals) {
        Map<String, SgmClient> clients = new LinkedHashMap<>();
        List<ClientProvider.Remote> opened = new ArrayList<>();
        for (Map.Entry<String, String> url : urls.entrySet()) {
          ClientProvider.Remote remote = ClientProvider.connect(url.getValue(), principal.token());
          opened.add(remote);
          clients.put(url.getKey(), remote);
        }
        clients.put("cli", cli(urls.get("http"), principal.token()));
        for (Case c : cases(principal, seeded)) {
          for (Map.Entry<String, SgmClient> client : clients.entrySet()) {
            if (client.getKey().equals("cli") && (cases % 7) != 0) {
              continue; // the command line starts a client per call: a sample is enough
            }
            cases++;
            String problem = run(c, client.getValue(), principal, seeded, denials);
            if (problem != null) {
              failures.add(client.getKey() + " " + principal.name() + " " + c + ": " + problem);
            }
          }
        }
        opened.forEach(ClientProvider.Remote::close);
      }
      System.out.printf(
          "access matrix: %d cases (%d denied), %d failures%n", cases, denials[0], failures.size());
      assertTrue(cases >= 1000, "only " + cases + " cases");
      assertTrue(
          denials[0] > cases / 10 && denials[0] < cases - cases / 10,
          "the generated grants allow and deny: " + denials[0] + " of " + cases + " denied");
      assertTrue(
          failures.isEmpty(),
          failures.size()
              + " of "
              + cases
              + " cases failed, e.g. "
              + failures.stream().limit(8).toList());
    }
  }

  private static List<Seeded> seed(SgmRuntime runtime) {
    List<Seeded> seeded = new ArrayList<>();
    for (int s = 0; s < SCOPES.size(); s++) {
      for (Sensitivity level : Sensitivity.values()) {
        Seeded record = new Seeded(SCOPES.get(s), "r" + s + "-" + level.wireName(), level);
        ObjectNode json = Json.object();
        json.put("id", record.id());
        json.put("type", "note");
        json.set("scope", Json.mapper().valueToTree(record.scope()));
        json.put("content", "common words and " + record.marker());
        json.putObject("provenance").put("agent", "seeder");
        json.putObject("sensitivity").put("level", level.wireName());
        ObjectNode request = Json.object();
        request.set("record", json);
        runtime.service().invoke(Caller.embedded(), "store", request);
        seeded.add(record);
      }
    }
    return seeded;
  }

  /** One case: an operation and its request. */
  private record Case(
      String operation, ObjectNode request, Map<String, String> scope, String mode, Seeded target) {
    @Override
    public String toString() {
      return operation + " " + Json.write(request);
    }
  }

  private static List<Case> cases(Principal principal, List<Seeded> seeded) {
    List<Case> cases = new ArrayList<>();
    for (Seeded record : seeded) {
      ObjectNode read = Json.object();
      read.set("scope", Json.mapper().valueToTree(record.scope()));
      read.put("id", record.id());
      cases.add(new Case("read", read, record.scope(), null, record));
    }
    int n = 0;
    for (Map<String, String> scope : SCOPES) {
      for (String mode : MODES) {
        for (boolean text : new boolean[] {false, true}) {
          ObjectNode query = Json.object();
          query.set("scope", Json.mapper().valueToTree(scope));
          query.put("scope_mode", mode);
          query.putArray("types").add("note");
          if (text) {
            query.put("text", "common words");
          }
          cases.add(new Case("retrieve", query, scope, mode, null));
        }
      }
      ObjectNode store = Json.object();
      ObjectNode record = store.putObject("record");
      record.put("id", "probe-" + principal.name() + "-" + n++);
      record.put("type", "probe");
      record.set("scope", Json.mapper().valueToTree(scope));
      record.putObject("provenance").put("agent", "matrix");
      cases.add(new Case("store", store, scope, null, null));
    }
    return cases;
  }

  /** What is wrong with the answer to {@code c}, or null. */
  private static String run(
      Case c, SgmClient client, Principal principal, List<Seeded> seeded, int[] denials) {
    JsonNode answer;
    ErrorCode refused = null;
    String text;
    try {
      answer = client.call(c.operation(), c.request());
      text = Json.write(answer);
    } catch (SgmException e) {
      answer = null;
      refused = e.code();
      text = e.getMessage() + " " + e.details();
      denials[0]++;
    }
    List<Seeded> visible = new ArrayList<>();
    switch (c.operation()) {
      case "read" -> {
        if (!principal.reads(c.scope())) {
          return refused == ErrorCode.FORBIDDEN
              ? leaks(text, principal, seeded, List.of())
              : "expected forbidden, got " + (refused == null ? text : refused);
        }
        if (refused != null) {
          return "expected the record, got " + refused + " " + text;
        }
        visible.add(c.target());
        JsonNode record = answer.path("record");
        boolean redacted = record.path("redacted").asBoolean();
        if (redacted == principal.cleared(c.target().level())) {
          return "redacted "
              + redacted
              + " for a "
              + c.target().level()
              + " record, clearance "
              + principal.clearance();
        }
      }
      case "retrieve" -> {
        boolean exact = c.mode().equals("exact");
        if (exact && !principal.reads(c.scope())) {
          return refused == ErrorCode.FORBIDDEN
              ? leaks(text, principal, seeded, List.of())
              : "expected forbidden, got " + (refused == null ? text : refused);
        }
        if (refused != null) {
          return "expected records, got " + refused + " " + text;
        }
        boolean byText = c.request().has("text");
        for (Seeded s : seeded) {
          if (covers(c.mode(), c.scope(), s.scope())
              && principal.reads(s.scope())
              && (!byText || principal.cleared(s.level()))) {
            visible.add(s);
          }
        }
        List<String> expected = visible.stream().map(Seeded::id).sorted().toList();
        List<String> got = new ArrayList<>();
        answer.path("records").forEach(r -> got.add(r.path("id").asText()));
        if (!expected.equals(got.stream().sorted().toList())) {
          return "expected " + expected + ", got " + got;
        }
        if (answer.path("total").asInt() != expected.size()) {
          return "total " + answer.path("total") + " for " + expected.size() + " visible";
        }
        for (JsonNode record : answer.path("records")) {
          Sensitivity level =
              Sensitivity.fromWireName(record.path("sensitivity").path("level").asText(), "level");
          if (record.path("redacted").asBoolean() == principal.cleared(level)) {
            return "redaction wrong on " + record.path("id").asText();
          }
        }
      }
      default -> {
        if (!principal.writes(c.scope())) {
          return refused == ErrorCode.FORBIDDEN
              ? leaks(text, principal, seeded, List.of())
              : "expected forbidden, got " + (refused == null ? text : refused);
        }
        if (refused != null) {
          return "expected the store, got " + refused + " " + text;
        }
        if (!principal
            .name()
            .equals(answer.path("record").path("provenance").path("principal").asText())) {
          return "the principal was not recorded: " + text;
        }
      }
    }
    return leaks(text, principal, seeded, visible);
  }

  /** A record's id or marker in {@code text} that the principal may not see, or null. */
  private static String leaks(
      String text, Principal principal, List<Seeded> seeded, List<Seeded> visible) {
    for (Seeded s : seeded) {
      boolean seen = visible.contains(s);
      if (!seen && text.contains("\"" + s.id() + "\"")) {
        return "leaked the id " + s.id();
      }
      if ((!seen || !principal.cleared(s.level())) && text.contains(s.marker())) {
        return "leaked the content of " + s.id();
      }
    }
    return null;
  }

  private static boolean covers(
      String mode, Map<String, String> queried, Map<String, String> record) {
    boolean narrower = record.entrySet().containsAll(queried.entrySet());
    boolean broader = queried.entrySet().containsAll(record.entrySet());
    return switch (mode) {
      case "exact" -> queried.equals(record);
      case "descendants" -> narrower;
      case "ancestors" -> broader;
      default -> narrower || broader;
    };
  }

  /** The command line against the HTTP server with {@code --token}, as a client. */
  private static SgmClient cli(String url, String token) {
    return (operation, request) -> {
      CommandLine commandLine = Sgm.commandLine();
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      commandLine.setOut(new PrintWriter(out));
      commandLine.setErr(new PrintWriter(err));
      int code =
          Sgm.execute(
              commandLine,
              "call",
              operation,
              Json.write(request),
              "--remote",
              url,
              "--token",
              token);
      if (code != 0) {
        ErrorCode error =
            code == 8 ? ErrorCode.FORBIDDEN : code == 3 ? ErrorCode.NOT_FOUND : ErrorCode.INTERNAL;
        throw new SgmException(error, "exit " + code + ": " + err.toString().trim());
      }
      return Json.parse(out.toString());
    };
  }
}
