package dev.sgm.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.MemoryArchive;
import dev.sgm.core.SgmRuntime;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A memory filled through the engine on the embedded H2 store (several projects and sessions,
 * history on, then off, then on again; edits, soft and hard deletes, a restore, a snapshot, content
 * by hash), exported as an archive and imported into PostgreSQL, is the same there: record by
 * record, version by version, snapshot by snapshot, content by content.
 */
class ExportImportTest {
  private static final Caller CALLER = Caller.embedded();

  @TempDir Path dir;

  private static SgmRuntime open(Map<String, String> settings, Path data) {
    Map<String, String> options = new HashMap<>(settings);
    options.put(ConfigLoader.DATA_DIR, data.toString());
    return SgmRuntime.open(ConfigLoader.load(options, Map.of()));
  }

  private static JsonNode call(SgmRuntime sgm, String op, String json) {
    return sgm.service().invoke(CALLER, op, Json.parse(json));
  }

  private static String scope(String project, String session) {
    return session == null
        ? "{\"project\":\"" + project + "\"}"
        : "{\"project\":\"" + project + "\",\"session\":\"" + session + "\"}";
  }

  private static void store(SgmRuntime sgm, String scope, String id, String content, String more) {
    call(
        sgm,
        "store",
        "{\"record\":{\"id\":\""
            + id
            + "\",\"type\":\"note\",\"scope\":"
            + scope
            + ",\"content\":\""
            + content
            + "\",\"tags\":[\"t-"
            + id
            + "\"],\"metadata\":{\"weight\":1.0,\"big\":12345678901234567890},"
            + "\"provenance\":{\"agent\":\"agent-"
            + id
            + "\"}"
            + more
            + "}}");
  }

  @Test
  void aMemoryExportedFromH2AndImportedIntoPostgresIsTheSameRecordByRecordAndVersionByVersion()
      throws IOException {
    PostgresCluster cluster = PostgresCluster.get();
    Path h2 = dir.resolve("h2");
    List<String> scopes = new ArrayList<>();
    for (String project : List.of("alpha", "beta")) {
      for (String session : new String[] {null, "s1", "s2"}) {
        scopes.add(scope(project, session));
      }
    }
    try (SgmRuntime sgm = open(Map.of(), h2)) {
      String hash =
          call(sgm, "put_content", "{\"content\":\"a document kept by its hash\"}")
              .path("reference")
              .path("hash")
              .asText();
      call(sgm, "put_content", "{\"content_base64\":\"AAEC/w==\"}");
      for (String scope : scopes) {
        for (int i = 0; i < 5; i++) {
          store(sgm, scope, "r" + i, "first text of r" + i, "");
        }
        for (int edit = 1; edit <= 3; edit++) {
          store(sgm, scope, "r0", "edit " + edit + " of r0", "");
        }
        store(
            sgm,
            scope,
            "doc",
            "see the reference",
            ",\"reference\":{\"kind\":\"content-hash\",\"hash\":\"" + hash + "\"}");
        call(sgm, "delete", "{\"scope\":" + scope + ",\"id\":\"r1\"}");
        call(sgm, "delete", "{\"scope\":" + scope + ",\"id\":\"r2\"}");
        store(sgm, scope, "r2", "r2 again, over its deleted self", "");
      }
      call(
          sgm,
          "snapshots.create",
          "{\"scope\":" + scope("alpha", null) + ",\"name\":\"before\",\"descendants\":true}");
      call(sgm, "snapshots.create", "{\"scope\":" + scope("beta", "s1") + ",\"name\":\"b1\"}");
      store(sgm, scope("alpha", null), "r0", "after the snapshot", "");
      call(
          sgm,
          "history.restore",
          "{\"scope\":" + scope("alpha", "s1") + ",\"id\":\"r0\",\"version\":2}");
    }
    // Written while history is off: rows without version entries, a hard delete of a record that
    // has versions, an edit that the version log does not know.
    try (SgmRuntime sgm = open(Map.of("profiles.disabled", "history"), h2)) {
      store(sgm, scope("alpha", null), "unlogged", "written without history", "");
      store(sgm, scope("beta", null), "r3", "edited without history", "");
      call(sgm, "delete", "{\"scope\":" + scope("beta", null) + ",\"id\":\"r4\"}");
    }
    Path archive = dir.resolve("memory.jsonl");
    Map<String, JsonNode> expected;
    try (SgmRuntime sgm = open(Map.of(), h2)) {
      store(sgm, scope("beta", "s2"), "r3", "history back on", "");
      try (Writer out = Files.newBufferedWriter(archive, StandardCharsets.UTF_8)) {
        MemoryArchive.Counts counts = sgm.exportArchive(out, (done, total) -> {});
        // Six records in each of six scopes, hidden ones included; one written without history,
        // and beta's r4 removed for good.
        assertEquals(6 * 6 + 1 - 1, counts.rows());
        assertEquals(2, counts.contents());
        assertEquals(2, counts.snapshots());
      }
      expected = view(sgm, archive);
    }
    String url = cluster.newDatabase();
    Path node = dir.resolve("pg-node");
    Map<String, JsonNode> actual;
    Path reexport = dir.resolve("again.jsonl");
    try (SgmRuntime pg = open(PostgresCluster.nodeConfig(url), node)) {
      long lines;
      try (var stream = Files.lines(archive)) {
        lines = stream.count() - 1;
      }
      List<long[]> progress = new ArrayList<>();
      try (BufferedReader in = Files.newBufferedReader(archive, StandardCharsets.UTF_8)) {
        pg.importArchive(in, lines, (done, total) -> progress.add(new long[] {done, total}));
      }
      assertEquals(lines, progress.getLast()[0], "progress reaches every line");
      actual = view(pg, archive);
      try (Writer out = Files.newBufferedWriter(reexport, StandardCharsets.UTF_8)) {
        pg.exportArchive(out, (done, total) -> {});
      }
      // A second import into a memory that holds records is refused, not merged.
      try (BufferedReader in = Files.newBufferedReader(archive, StandardCharsets.UTF_8)) {
        SgmException refused =
            org.junit.jupiter.api.Assertions.assertThrows(
                SgmException.class, () -> pg.importArchive(in, lines, (d, t) -> {}));
        assertTrue(refused.getMessage().contains("empty"), refused.getMessage());
      }
    }
    // The view holds what it should, so that comparing it means something.
    JsonNode r0 = expected.get("project=alpha:r0");
    assertEquals(5, r0.path("versions").path("versions").size(), Json.write(r0));
    assertEquals(
        "a document kept by its hash",
        expected.get("project=beta;session=s2:doc").path("read").path("content").asText());
    assertEquals("not_found", expected.get("project=beta:r4").path("read").path("error").asText());
    assertEquals(
        15, expected.get("snapshot project=alpha before").size(), "the snapshot's records");
    assertEquals(expected.keySet(), actual.keySet());
    for (String key : expected.keySet()) {
      assertEquals(Json.write(expected.get(key)), Json.write(actual.get(key)), key);
    }
    assertEquals(comparable(archive), comparable(reexport), "the stored rows and version log");
  }

  /**
   * What a client sees of every record the archive names: the record (or its error), every version
   * with writer and time, the content it references; every scope's records; every snapshot as of
   * when it was taken.
   */
  private static Map<String, JsonNode> view(SgmRuntime sgm, Path archive) throws IOException {
    TreeSet<String> records = new TreeSet<>();
    TreeSet<String> scopes = new TreeSet<>();
    for (String line : Files.readAllLines(archive)) {
      JsonNode n = Json.parse(line);
      if (n.has("id") && (n.path("kind").asText().equals("row") || n.has("written_us"))) {
        records.add(n.path("scope").asText() + ":" + n.path("id").asText());
        scopes.add(n.path("scope").asText());
      }
    }
    Map<String, JsonNode> view = new TreeMap<>();
    for (String qualified : records) {
      var address = dev.sgm.api.Scope.parseQualified(qualified);
      ObjectNode request = Json.object();
      request.set("scope", Json.parse(scopeJson(address.getKey())));
      request.put("id", address.getValue());
      ObjectNode seen = Json.object();
      seen.set("read", attempt(sgm, "read", request.deepCopy().put("resolve", true)));
      seen.set("versions", attempt(sgm, "history.versions", request.deepCopy().put("limit", 1000)));
      view.put(qualified, seen);
    }
    for (String scope : scopes) {
      String json = scopeJson(dev.sgm.api.Scope.parseCanonical(scope));
      JsonNode page =
          call(
              sgm,
              "retrieve",
              "{\"scope\":"
                  + json
                  + ",\"order_by\":\"created_at\",\"order\":\"asc\",\"limit\":1000}");
      view.put("retrieve " + scope, page.path("records"));
      JsonNode snapshots = call(sgm, "snapshots.list", "{\"scope\":" + json + "}");
      for (JsonNode s : snapshots.path("snapshots")) {
        String name = s.path("name").asText();
        view.put(
            "snapshot " + scope + " " + name,
            call(
                    sgm,
                    "snapshots.retrieve",
                    "{\"snapshot\":{\"scope\":"
                        + json
                        + ",\"name\":\""
                        + name
                        + "\"},\"query\":{\"scope\":"
                        + json
                        + ",\"scope_mode\":\"descendants\",\"order_by\":\"created_at\","
                        + "\"order\":\"asc\",\"limit\":1000}}")
                .path("records"));
        ObjectNode listed = s.deepCopy();
        view.put("snapshot entry " + scope + " " + name, listed);
      }
    }
    return view;
  }

  private static String scopeJson(dev.sgm.api.Scope scope) {
    ObjectNode json = Json.object();
    scope.pairs().forEach(json::put);
    return Json.write(json);
  }

  private static JsonNode attempt(SgmRuntime sgm, String op, JsonNode request) {
    try {
      JsonNode answer = sgm.service().invoke(CALLER, op, request);
      if (answer instanceof ObjectNode o) {
        // A paging cursor names a write sequence number, which is the storage's own.
        o.remove("next_cursor");
      }
      return answer;
    } catch (SgmException e) {
      return Json.object().put("error", e.code().wireName());
    }
  }

  /**
   * The archive's lines without what is the storage's own (write sequence numbers, its
   * description), rows sorted by identity: equal for two storages holding the same memory.
   */
  private static List<String> comparable(Path archive) throws IOException {
    List<String> versions = new ArrayList<>();
    List<String> rows = new ArrayList<>();
    List<String> rest = new ArrayList<>();
    for (String line : Files.readAllLines(archive)) {
      ObjectNode n = (ObjectNode) Json.parse(line);
      if (n.has(MemoryArchive.FORMAT_KEY)) {
        continue;
      }
      n.remove("seq");
      switch (n.path("kind").asText()) {
        case "version" -> versions.add(Json.write(n));
        case "row" -> rows.add(Json.write(n));
        default -> rest.add(Json.write(n));
      }
    }
    rows.sort(null);
    List<String> all = new ArrayList<>(rest);
    all.addAll(versions);
    all.addAll(rows);
    return all;
  }
}
