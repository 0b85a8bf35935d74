package dev.sgm.app;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What sgm writes into a TOML file (Codex's {@code config.toml}) without a TOML parser: a block
 * between two comment lines that uninstall finds again, and a look at the rest of the file for the
 * tables the block would define, since TOML refuses a table defined twice and the user's own
 * definition wins.
 */
final class TomlBlocks {
  /** A table header: {@code [a.b."c d"]}, or an array of tables {@code [[a.b]]}. */
  private static final Pattern HEADER =
      Pattern.compile("^\\s*\\[\\[?\\s*(.+?)\\s*\\]\\]?\\s*(#.*)?$");

  /** A key/value line's key: everything before the first {@code =} outside quotes. */
  private static final Pattern KEY = Pattern.compile("^\\s*([A-Za-z0-9_\\-.\"' ]+?)\\s*=");

  private TomlBlocks() {}

  static String open(String marker) {
    return "# >>> " + marker + " >>>\n";
  }

  static String close(String marker) {
    return "# <<< " + marker + " <<<\n";
  }

  /**
   * {@code text} without the block named {@code marker} and the {@code prefix} written before it.
   */
  static String remove(String text, String marker, String prefix) {
    String open = open(marker);
    int start = 0;
    if (!text.startsWith(open)) {
      start = text.indexOf("\n" + open);
      if (start < 0) {
        return text;
      }
      start++;
    }
    String close = close(marker);
    int end = text.indexOf(close, start);
    if (end < 0) {
      return text;
    }
    end += close.length();
    if (start >= prefix.length() && text.startsWith(prefix, start - prefix.length())) {
      start -= prefix.length();
    }
    return text.substring(0, start) + text.substring(end);
  }

  /**
   * Whether {@code text} already defines {@code table} or something inside it (a sub-table, a key,
   * a dotted key), or a value that holds it (an inline table): then writing {@code [table]} would
   * either break the file or override what the user wrote.
   */
  static boolean defines(String text, List<String> table) {
    List<String> current = List.of();
    boolean inMultiline = false;
    for (String line : text.split("\n", -1)) {
      if (inMultiline) {
        inMultiline = !closesMultiline(line);
        continue;
      }
      Matcher header = HEADER.matcher(line);
      if (!line.strip().startsWith("#") && header.matches()) {
        current = keyPath(header.group(1));
        if (overlaps(current, table)) {
          return true;
        }
        continue;
      }
      Matcher key = KEY.matcher(line);
      if (key.find()) {
        List<String> full = new ArrayList<>(current);
        full.addAll(keyPath(key.group(1)));
        if (overlaps(full, table)) {
          return true;
        }
        inMultiline = opensMultiline(line.substring(key.end()));
      }
    }
    return false;
  }

  /** Whether one of the two paths is the other or starts with it. */
  private static boolean overlaps(List<String> a, List<String> b) {
    int n = Math.min(a.size(), b.size());
    return n > 0 && a.subList(0, n).equals(b.subList(0, n));
  }

  private static boolean opensMultiline(String value) {
    for (String quotes : List.of("\"\"\"", "'''")) {
      int first = value.indexOf(quotes);
      if (first >= 0 && value.indexOf(quotes, first + 3) < 0) {
        return true;
      }
    }
    return false;
  }

  private static boolean closesMultiline(String line) {
    return line.contains("\"\"\"") || line.contains("'''");
  }

  /** {@code a."b.c".'d'} as [a, b.c, d]. */
  static List<String> keyPath(String key) {
    List<String> parts = new ArrayList<>();
    StringBuilder part = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (quote != 0) {
        if (c == '\\' && quote == '"' && i + 1 < key.length()) {
          part.append(key.charAt(++i));
        } else if (c == quote) {
          quote = 0;
        } else {
          part.append(c);
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '.') {
        parts.add(part.toString().strip());
        part.setLength(0);
      } else if (!Character.isWhitespace(c)) {
        part.append(c);
      }
    }
    parts.add(part.toString().strip());
    return parts;
  }

  /** {@code value} as a TOML basic string, quotes included. */
  static String string(String value) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\t' -> out.append("\\t");
        case '\n' -> out.append("\\n");
        case '\f' -> out.append("\\f");
        case '\r' -> out.append("\\r");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            out.append(String.format("\\u%04X", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  /** {@code values} as a TOML array of strings. */
  static String strings(List<String> values) {
    List<String> quoted = new ArrayList<>();
    values.forEach(v -> quoted.add(string(v)));
    return "[" + String.join(", ", quoted) + "]";
  }
}
