package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a server says about how far its semantic index lags behind what is stored: any number named
 * like {@code lag}, {@code lag_ms}, {@code pending}, {@code behind} or {@code backlog}, and any
 * flag named like {@code caught_up} or {@code up_to_date}, in discovery's {@code retrieval} object
 * or in a retrieve's response. The field's exact name is the server's to choose; the benchmarks
 * only need to know whether it has caught up.
 */
final class SemanticLag {
  private static final Pattern LAG = Pattern.compile("(?i).*(lag|pending|behind|backlog).*");
  private static final Pattern CAUGHT_UP = Pattern.compile("(?i).*(caught_up|up_to_date).*");

  private SemanticLag() {}

  /** The reporting fields under {@code node} (records and scores aside), by their path. */
  static Map<String, JsonNode> reports(String path, JsonNode node) {
    Map<String, JsonNode> into = new LinkedHashMap<>();
    collect(path, node, into);
    return into;
  }

  private static void collect(String path, JsonNode node, Map<String, JsonNode> into) {
    if (!node.isObject()) {
      return;
    }
    for (Map.Entry<String, JsonNode> field : node.properties()) {
      String key = field.getKey();
      JsonNode value = field.getValue();
      if (key.equals("records") || key.equals("scores")) {
        continue;
      }
      if (value.isObject()) {
        collect(path + "." + key, value, into);
      } else if ((value.isNumber() && LAG.matcher(key).matches())
          || (value.isBoolean() && CAUGHT_UP.matcher(key).matches())) {
        into.put(path + "." + key, value);
      }
    }
  }

  /** Caught up when every lag reported is zero and every flag true; empty when none is reported. */
  static Optional<Boolean> caughtUp(Map<String, JsonNode> reports) {
    if (reports.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        reports.values().stream()
            .allMatch(v -> v.isBoolean() ? v.booleanValue() : v.doubleValue() == 0));
  }
}
