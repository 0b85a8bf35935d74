package dev.sgm.tck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;

/**
 * Hostile requests for robustness tests of a transport: valid requests of the SGM operations,
 * mutated at the level of the JSON tree (wrong types, huge or odd values, missing and extra keys,
 * deep nesting) and of the bytes (flips, insertions, cuts), from a seed, so a failure can be
 * replayed. {@link #leak} says whether an answer shows what a client must never see: stack traces,
 * SQL, class names of the server's internals.
 */
public final class RequestFuzzer {
  /** What no answer may contain: traces, exceptions, SQL and the storage's own names. */
  private static final Pattern LEAK =
      Pattern.compile(
          "\\tat |at (java|dev\\.sgm|org\\.h2|com\\.fasterxml|io\\.grpc|org\\.eclipse)\\."
              + "|[A-Za-z]+Exception|org\\.h2|jdbc:|SQLSTATE|\\bSELECT\\b|\\bINSERT INTO\\b"
              + "|\\bUPDATE [A-Z_]+ SET\\b|Caused by:");

  /** Values that break assumptions: types, sizes, encodings, numbers beyond every range. */
  private static final List<JsonNode> HOSTILE = hostileValues();

  /**
   * Single bytes that end strings, escape, open structures, or are not UTF-8 on their own: NUL,
   * 0xff, 0x80, a quote, a backslash, an opening brace and bracket, a colon, a comma, and 0xc3.
   */
  private static final byte[] SPECIAL =
      "\u0000\u00ff\u0080\"\\{[:,\u00c3".getBytes(StandardCharsets.ISO_8859_1);

  /** The openings of an array and of an object. */
  private static final byte[] OPENERS = "[{".getBytes(StandardCharsets.US_ASCII);

  private final Random random;
  private final Map<String, ObjectNode> seeds;
  private final List<String> operations;

  /** A fuzzer whose sequence of requests is fixed by {@code seed}, in project {@code fuzz}. */
  public RequestFuzzer(long seed) {
    this(seed, "fuzz");
  }

  /**
   * A fuzzer whose sequence of requests is fixed by {@code seed}; its valid requests work in
   * project {@code project}, so that fuzzers running side by side do not wait on each other's rows.
   */
  public RequestFuzzer(long seed, String project) {
    this.random = new Random(seed);
    this.seeds = seeds(project);
    this.operations = List.copyOf(seeds.keySet());
  }

  /** One generated request: the operation it targets and its body. */
  public record Request(String operation, JsonNode json, byte[] bytes) {
    /** The body as text (not necessarily valid UTF-8 or JSON). */
    public String text() {
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  /** The operations the seeds cover, core first. */
  public List<String> operations() {
    return operations;
  }

  /** A valid request of {@code operation}, as a fresh copy. */
  public ObjectNode seed(String operation) {
    return seeds.get(operation).deepCopy();
  }

  /**
   * The next request: an operation (sometimes a made-up one), and a body mutated as JSON, as bytes,
   * or both. {@code json} is the mutated tree when the body is still JSON, else null.
   */
  public Request next() {
    String operation = operations.get(random.nextInt(operations.size()));
    if (random.nextInt(40) == 0) {
      operation = mutateName(operation);
    }
    JsonNode json = seeds.getOrDefault(operation, seeds.get("store")).deepCopy();
    int kind = random.nextInt(10);
    if (kind < 6) {
      int mutations = 1 + random.nextInt(3);
      for (int i = 0; i < mutations; i++) {
        json = mutate(json);
      }
    }
    byte[] bytes;
    try {
      bytes = Json.writeBytes(json);
    } catch (IllegalStateException e) {
      // Nested deeper than JSON may be written: send such nesting as bytes instead.
      json = seeds.getOrDefault(operation, seeds.get("store"));
      bytes = Json.writeBytes(json);
      kind = 9;
    }
    if (kind >= 5) {
      bytes = mutateBytes(bytes);
      json = null;
    }
    return new Request(operation, json, bytes);
  }

  /** A random int below {@code bound}, from this fuzzer's sequence. */
  public int nextInt(int bound) {
    return random.nextInt(bound);
  }

  /** {@code bytes} with one to four byte-level mutations. */
  public byte[] mutateBytes(byte[] bytes) {
    byte[] out = bytes;
    int mutations = 1 + random.nextInt(4);
    for (int i = 0; i < mutations; i++) {
      out = mutateOnce(out);
    }
    return out;
  }

  /** One byte-level mutation, of a kind and at a place chosen at random. */
  private byte[] mutateOnce(byte[] in) {
    if (in.length == 0) {
      return new byte[] {(byte) random.nextInt(256)};
    }
    int at = random.nextInt(in.length);
    return switch (random.nextInt(8)) {
      case 0 -> flipBit(in, at);
      case 1 -> replaceByte(in, at);
      case 2 -> splice(in, at, 0, randomBytes(1 + random.nextInt(8)));
      case 3 -> Arrays.copyOf(in, at);
      case 4 -> splice(in, at, Math.min(in.length - at, 1 + random.nextInt(16)), new byte[0]);
      case 5 -> repeatRun(in, at);
      case 6 -> splice(in, at, 0, nesting());
      default -> splice(in, at, 0, new byte[] {SPECIAL[random.nextInt(SPECIAL.length)]});
    };
  }

  private byte[] flipBit(byte[] in, int at) {
    byte[] out = in.clone();
    out[at] ^= (byte) (1 << random.nextInt(8));
    return out;
  }

  private byte[] replaceByte(byte[] in, int at) {
    byte[] out = in.clone();
    out[at] = (byte) random.nextInt(256);
    return out;
  }

  private byte[] randomBytes(int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  /** {@code in} with up to 32 bytes from {@code at} on written twice. */
  private byte[] repeatRun(byte[] in, int at) {
    int length = Math.min(in.length - at, 1 + random.nextInt(32));
    return splice(in, at, 0, Arrays.copyOfRange(in, at, at + length));
  }

  /** Openings of arrays or of objects, deeper than any parser should follow. */
  private byte[] nesting() {
    byte[] nesting = new byte[1000 + random.nextInt(5000)];
    Arrays.fill(nesting, OPENERS[random.nextBoolean() ? 0 : 1]);
    return nesting;
  }

  private static byte[] splice(byte[] in, int at, int remove, byte[] insert) {
    byte[] out = new byte[in.length - remove + insert.length];
    System.arraycopy(in, 0, out, 0, at);
    System.arraycopy(insert, 0, out, at, insert.length);
    System.arraycopy(in, at + remove, out, at + insert.length, in.length - at - remove);
    return out;
  }

  private String mutateName(String operation) {
    return switch (random.nextInt(5)) {
      case 0 -> "";
      case 1 -> operation + "x";
      case 2 -> operation.toUpperCase(java.util.Locale.ROOT);
      case 3 -> "../" + operation;
      default -> operation.replace('.', '/');
    };
  }

  /** {@code json} with one change somewhere in its tree. */
  public JsonNode mutate(JsonNode json) {
    List<JsonNode> containers = new ArrayList<>();
    collect(json, containers);
    if (containers.isEmpty() || random.nextInt(30) == 0) {
      return hostile();
    }
    JsonNode container = containers.get(random.nextInt(containers.size()));
    if (container instanceof ObjectNode object) {
      List<String> names = new ArrayList<>();
      object.fieldNames().forEachRemaining(names::add);
      int action = random.nextInt(names.isEmpty() ? 1 : 4);
      if (action == 0) {
        object.set(randomKey(), hostile());
      } else {
        String name = names.get(random.nextInt(names.size()));
        switch (action) {
          case 1 -> object.remove(name);
          case 2 -> object.set(name, hostile());
          default -> object.set(name, wrap(object.get(name)));
        }
      }
    } else if (container instanceof ArrayNode array) {
      if (array.isEmpty() || random.nextBoolean()) {
        array.add(hostile());
      } else {
        array.set(random.nextInt(array.size()), hostile());
      }
    }
    return json;
  }

  private JsonNode wrap(JsonNode value) {
    if (random.nextBoolean()) {
      return Json.array().add(value);
    }
    ObjectNode object = Json.object();
    object.set("value", value);
    return object;
  }

  private String randomKey() {
    String[] keys = {
      "scope",
      "id",
      "type",
      "record",
      "records",
      "cursor",
      "limit",
      "scope_mode",
      "text",
      "filter",
      "expected_version",
      "if_absent",
      "provenance",
      "data",
      "sensitivity",
      "__proto__",
      "",
      "A-B"
    };
    return keys[random.nextInt(keys.length)];
  }

  private JsonNode hostile() {
    if (random.nextInt(20) == 0) {
      // Deeper than the writer's limit would fail here; mutateBytes nests deeper still.
      return deep(50 + random.nextInt(900));
    }
    return HOSTILE.get(random.nextInt(HOSTILE.size())).deepCopy();
  }

  private JsonNode deep(int depth) {
    JsonNode node = Json.object();
    for (int i = 0; i < depth; i++) {
      node = random.nextBoolean() ? Json.array().add(node) : wrapObject(node);
    }
    return node;
  }

  private static JsonNode wrapObject(JsonNode node) {
    ObjectNode object = Json.object();
    object.set("a", node);
    return object;
  }

  private static void collect(JsonNode node, List<JsonNode> containers) {
    if (node.isContainerNode()) {
      containers.add(node);
      for (JsonNode child : node) {
        collect(child, containers);
      }
    }
  }

  /**
   * What in {@code answer} a client must not see (a stack frame, an exception's class name, SQL),
   * or null when it shows nothing of the kind.
   */
  public static String leak(String answer) {
    if (answer == null) {
      return null;
    }
    var matcher = LEAK.matcher(answer);
    return matcher.find() ? matcher.group() : null;
  }

  private static List<JsonNode> hostileValues() {
    List<String> texts =
        List.of(
            "null",
            "true",
            "false",
            "0",
            "-1",
            "1.5",
            "-0.0",
            "1e400",
            "-1e400",
            "123456789012345678901234567890",
            "9223372036854775808",
            "-9223372036854775809",
            "2147483648",
            "\"\"",
            "\" \"",
            "\"\\u0000\"",
            "\"\\ud800\"",
            "\"a\\nb\"",
            "\"exact\"",
            "\"descendants\"",
            "\"lineage\"",
            "\"ancestors\"",
            "\"relevance\"",
            "\"%\"",
            "\"..\"",
            "\"project=alpha;session=s1\"",
            "\"project=alpha:id\"",
            "\"2026-13-45T99:99:99Z\"",
            "\"2026-01-01T00:00:00Z\"",
            "\"AAAA\"",
            "\"eyJ4IjoxfQ\"",
            "\"'; DROP TABLE records; --\"",
            "\"ünïcødé ✓ 𝄞\"",
            "[]",
            "{}",
            "[null]",
            "[1,2,3]",
            "[\"a\",\"b\"]",
            "{\"project\":\"alpha\"}",
            "{\"project\":\"\"}",
            "{\"Project\":\"a\"}",
            "{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\",\"d\":\"4\",\"e\":\"5\",\"f\":\"6\",\"g\":\"7\","
                + "\"h\":\"8\",\"i\":\"9\"}",
            "{\"agent\":\"\"}",
            "{\"agent\":1}",
            "{\"level\":\"secret\"}",
            "{\"kind\":\"content-hash\",\"hash\":\"00\"}");
    List<JsonNode> values = new ArrayList<>();
    for (String text : texts) {
      values.add(Json.parse(text));
    }
    values.add(Json.mapper().getNodeFactory().textNode("x".repeat(5_000)));
    values.add(Json.mapper().getNodeFactory().textNode("\u0007\u001b[31m"));
    return List.copyOf(values);
  }

  /** A valid request of each operation the fuzzer targets, by wire name. */
  private static Map<String, ObjectNode> seeds(String project) {
    String record =
        "{'id':'f1','type':'note','scope':{'project':'fuzz'},'content':'fuzzed text',"
            + "'tags':['a'],'provenance':{'agent':'fuzzer'},'metadata':{'n':1.0}}";
    String task =
        "{'id':'t1','type':'task','scope':{'project':'fuzz'},'content':'do it',"
            + "'provenance':{'agent':'fuzzer'},'data':{'state':'open'}}";
    Map<String, String> texts = new LinkedHashMap<>();
    texts.put("discover", "{'accept_versions':['0.1.0']}");
    texts.put("store", "{'record':" + record + ",'expected_version':1}");
    texts.put("store_batch", "{'records':[" + record + "," + task + "],'if_absent':false}");
    texts.put("read", "{'scope':{'project':'fuzz'},'id':'f1','resolve':true}");
    texts.put(
        "retrieve",
        "{'scope':{'project':'fuzz'},'scope_mode':'descendants','types':['note'],'tags':['a'],"
            + "'tags_mode':'any','text':'fuzzed','filter':{'metadata.n':1},'limit':5,"
            + "'order_by':'relevance','created_after':'2020-01-01T00:00:00Z'}");
    texts.put("delete", "{'scope':{'project':'fuzz'},'id':'f1','expected_version':2}");
    texts.put("put_content", "{'content':'hello'}");
    texts.put("tasks.claim", "{'scope':{'project':'fuzz'},'id':'t1','agent':'fuzzer'}");
    texts.put("rules.active", "{'scope':{'project':'fuzz','session':'s1'}}");
    texts.put("history.versions", "{'scope':{'project':'fuzz'},'id':'f1','limit':3}");
    texts.put("snapshots.create", "{'scope':{'project':'fuzz'},'name':'s1'}");
    texts.put("code.symbols", "{'scope':{'project':'fuzz'},'name':'main'}");
    Map<String, ObjectNode> seeds = new LinkedHashMap<>();
    texts.forEach(
        (op, text) ->
            seeds.put(
                op,
                (ObjectNode)
                    Json.parse(text.replace("'fuzz'", "'" + project + "'").replace('\'', '"'))));
    // In insertion order, so that a seed replays the same sequence in every JVM.
    return java.util.Collections.unmodifiableMap(seeds);
  }
}
