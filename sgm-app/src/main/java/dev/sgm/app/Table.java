package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Map;

/** A retrieve result as a table for people: id, type, scope, updated, and a first line of text. */
final class Table {
  private Table() {}

  static void print(PrintWriter out, JsonNode result) {
    boolean scored = result.path("scores").isArray();
    String format = (scored ? "%-7s " : "%s") + "%-28s %-10s %-26s %-20s %s%n";
    out.printf(format, scored ? "SCORE" : "", "ID", "TYPE", "SCOPE", "UPDATED", "TITLE / CONTENT");
    int row = 0;
    for (JsonNode record : result.path("records")) {
      String score =
          scored
              ? String.format(
                  java.util.Locale.ROOT, "%.3f", result.path("scores").path(row).asDouble())
              : "";
      row++;
      StringBuilder scope = new StringBuilder();
      for (Map.Entry<String, JsonNode> pair : record.path("scope").properties()) {
        scope
            .append(scope.isEmpty() ? "" : ",")
            .append(pair.getKey())
            .append('=')
            .append(pair.getValue().asText());
      }
      String text = record.path("title").asText(record.path("content").asText(""));
      out.printf(
          format,
          score,
          cut(record.path("id").asText(), 28),
          cut(record.path("type").asText(), 10),
          cut(scope.toString(), 26),
          cut(record.path("updated_at").asText(), 19),
          cut(text.lines().findFirst().orElse(""), 60));
    }
    long total = result.path("total").asLong();
    out.printf(
        "%d of %d%s%n",
        result.path("records").size(),
        total,
        result.hasNonNull("next_cursor")
            ? "; next page: --cursor " + result.path("next_cursor").asText()
            : "");
    out.flush();
  }

  private static String cut(String text, int width) {
    return text.length() <= width ? text : text.substring(0, width - 1) + "…";
  }
}
