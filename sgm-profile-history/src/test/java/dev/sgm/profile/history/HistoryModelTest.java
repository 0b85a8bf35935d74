package dev.sgm.profile.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Property-style: random sequences of stores, deletes, restores, undeletes, snapshots and snapshot
 * restores, checked after every step against a small in-memory model of what each scope holds.
 */
class HistoryModelTest {
  private static final String[] IDS = {"a", "b", "c", "d", "e"};
  private static final String[] SCOPES = {
    "{\"project\":\"m\"}", "{\"project\":\"m\",\"session\":\"s\"}"
  };

  /**
   * What one record is in the model: content, the creation it belongs to, version, and liveness.
   */
  private record State(String content, int generation, long version, boolean live) {}

  /** Versions of one record as the model expects the log to hold them. */
  private static final class Model {
    final Map<String, State> current = new TreeMap<>();
    final Map<String, Map<Long, State>> versions = new HashMap<>();
    final Map<String, Map<String, State>> snapshots = new HashMap<>();
    int generations;

    void record(String key, State state) {
      current.put(key, state);
      versions.computeIfAbsent(key, k -> new HashMap<>()).put(state.version(), state);
    }
  }

  private SgmRuntime sgm;
  private final Caller caller = Caller.embedded();

  private JsonNode call(String op, String json) {
    return sgm.service().invoke(caller, op, Json.parse(json));
  }

  private static String key(int scope, String id) {
    return scope + "/" + id;
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4})
  void randomHistoriesMatchTheModel(long seed) {
    sgm = SgmRuntime.open(ConfigLoader.load(Map.of(ConfigLoader.STORAGE_MEMORY, "true"), Map.of()));
    try {
      Random random = new Random(seed);
      Model model = new Model();
      for (int step = 0; step < 250; step++) {
        int scope = random.nextInt(SCOPES.length);
        String id = IDS[random.nextInt(IDS.length)];
        String key = key(scope, id);
        State now = model.current.get(key);
        String at = "{\"scope\":" + SCOPES[scope] + ",\"id\":\"" + id + "\"";
        switch (random.nextInt(6)) {
          case 0, 1 -> {
            String content = "c" + random.nextInt(3);
            call(
                "store",
                "{\"record\":{\"id\":\""
                    + id
                    + "\",\"type\":\"note\",\"scope\":"
                    + SCOPES[scope]
                    + ",\"content\":\""
                    + content
                    + "\",\"provenance\":{\"agent\":\"m\"}}}");
            if (now == null || !now.live()) {
              model.record(
                  key,
                  new State(
                      content, ++model.generations, now == null ? 1 : now.version() + 1, true));
            } else if (!now.content().equals(content)) {
              model.record(key, new State(content, now.generation(), now.version() + 1, true));
            }
          }
          case 2 -> {
            if (now != null && now.live()) {
              call("delete", at + "}");
              model.current.put(
                  key, new State(now.content(), now.generation(), now.version(), false));
            }
          }
          case 3 -> {
            if (now != null) {
              List<Long> known = new ArrayList<>(model.versions.get(key).keySet());
              long version = known.get(random.nextInt(known.size()));
              State past = model.versions.get(key).get(version);
              call("history.restore", at + ",\"version\":" + version + "}");
              if (!now.live() || !sameContent(now, past)) {
                model.record(
                    key, new State(past.content(), past.generation(), now.version() + 1, true));
              }
            }
          }
          case 4 -> {
            if (now != null && !now.live()) {
              call("history.undelete", at + "}");
              model.record(
                  key, new State(now.content(), now.generation(), now.version() + 1, true));
            }
          }
          default -> {
            if (random.nextBoolean() || model.snapshots.isEmpty()) {
              String name = "s" + step;
              call(
                  "snapshots.create",
                  "{\"scope\":" + SCOPES[0] + ",\"name\":\"" + name + "\",\"descendants\":true}");
              model.snapshots.put(name, new TreeMap<>(model.current));
            } else {
              List<String> names = new ArrayList<>(model.snapshots.keySet());
              String name = names.get(random.nextInt(names.size()));
              call("snapshots.restore", "{\"scope\":" + SCOPES[0] + ",\"name\":\"" + name + "\"}");
              restoreInModel(model, model.snapshots.get(name));
            }
          }
        }
        check(model, step, seed);
      }
      for (Map.Entry<String, Map<String, State>> snapshot : model.snapshots.entrySet()) {
        JsonNode then =
            call(
                "snapshots.retrieve",
                "{\"snapshot\":{\"scope\":"
                    + SCOPES[0]
                    + ",\"name\":\""
                    + snapshot.getKey()
                    + "\"},\"query\":{\"scope\":"
                    + SCOPES[0]
                    + ",\"scope_mode\":\"descendants\",\"limit\":1000}}");
        assertEquals(live(snapshot.getValue()), contents(then), "snapshot " + snapshot.getKey());
      }
    } finally {
      sgm.close();
    }
  }

  private static boolean sameContent(State a, State b) {
    return a.content().equals(b.content()) && a.generation() == b.generation();
  }

  private static void restoreInModel(Model model, Map<String, State> snapshot) {
    for (Map.Entry<String, State> e : new ArrayList<>(model.current.entrySet())) {
      State now = e.getValue();
      State then = snapshot.get(e.getKey());
      if (then == null || !then.live()) {
        if (now.live()) {
          model.current.put(
              e.getKey(), new State(now.content(), now.generation(), now.version(), false));
        }
      } else if (!now.live() || !sameContent(now, then)) {
        model.record(
            e.getKey(), new State(then.content(), then.generation(), now.version() + 1, true));
      }
    }
  }

  private void check(Model model, int step, long seed) {
    JsonNode result =
        call(
            "retrieve",
            "{\"scope\":" + SCOPES[0] + ",\"scope_mode\":\"descendants\",\"limit\":1000}");
    assertEquals(live(model.current), contents(result), "seed " + seed + ", step " + step);
  }

  private static Map<String, String> live(Map<String, State> states) {
    Map<String, String> live = new TreeMap<>();
    states.forEach(
        (key, state) -> {
          if (state.live()) {
            live.put(key, state.content() + " v" + state.version());
          }
        });
    return live;
  }

  private static Map<String, String> contents(JsonNode result) {
    Map<String, String> found = new TreeMap<>();
    for (JsonNode record : result.path("records")) {
      int scope = record.path("scope").has("session") ? 1 : 0;
      found.put(
          key(scope, record.path("id").asText()),
          record.path("content").asText() + " v" + record.path("version").asLong());
    }
    return found;
  }
}
