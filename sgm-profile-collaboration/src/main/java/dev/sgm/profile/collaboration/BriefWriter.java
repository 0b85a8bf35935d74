package dev.sgm.profile.collaboration;

import dev.sgm.api.BriefBudget;
import dev.sgm.api.QuotedMemory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Writes a brief as markdown within a budget of tokens: a header, then each section's items in
 * order, each section's items quoted in one fenced block so that recalled text reads as data, and a
 * last line saying what did not fit and how to get it. Items go in strictly in order, and the first
 * one that does not fit ends the brief (cut short if enough room is left for it to say something),
 * so nothing later ever displaces anything earlier.
 */
final class BriefWriter {
  /** How tokens are counted: {@link BriefBudget#BYTES_PER_TOKEN} bytes of UTF-8 a token. */
  static final int BYTES_PER_TOKEN = BriefBudget.BYTES_PER_TOKEN;

  /** The most an item takes before it is cut short: one record must not fill a brief. */
  static final int MAX_ITEM_BYTES = 1200;

  /** Below this much room an item is not started: a few words of it would say nothing. */
  static final int MIN_ITEM_BYTES = 90;

  private BriefWriter() {}

  /** One record as the brief shows it: who wrote it, when and its id, then its text. */
  record Item(String id, String attribution, String text) {}

  /**
   * A section of the brief.
   *
   * @param name its name in the JSON answer, e.g. {@code handoffs}
   * @param title its heading
   * @param items what it has to show, in order
   * @param total how many records it has in all, those beyond {@code items} included
   */
  record Section(String name, String title, List<Item> items, long total) {
    Section {
      items = List.copyOf(items);
      total = Math.max(total, items.size());
    }
  }

  /**
   * A written brief.
   *
   * @param text the markdown
   * @param tokens its size, as {@link #tokens} counts
   * @param shown the ids shown, by section
   * @param omitted how many records of each section are not shown
   */
  record Brief(
      String text, int tokens, Map<String, List<String>> shown, Map<String, Long> omitted) {}

  /** The size of {@code text} in tokens, as every budget counts it. */
  static int tokens(String text) {
    return BriefBudget.tokens(text);
  }

  /**
   * Writes the brief.
   *
   * @param header the first lines, always written
   * @param sections the sections, most important first
   * @param empty the line written when no section has anything
   * @param budget the most tokens the brief takes
   * @param maxBudget the largest budget there is, for the call that shows the rest
   * @param moreCall the call that shows the rest, given the budget it would need
   */
  static Brief write(
      String header,
      List<Section> sections,
      String empty,
      int budget,
      int maxBudget,
      IntFunction<String> moreCall) {
    int limit = budget * BYTES_PER_TOKEN;
    StringBuilder out = new StringBuilder(header);
    Map<String, List<String>> shown = new LinkedHashMap<>();
    Map<String, Long> omitted = new LinkedHashMap<>();
    boolean anything = sections.stream().anyMatch(s -> s.total() > 0);
    if (!anything) {
      out.append('\n').append(empty).append('\n');
      return finish(out.toString(), limit, shown, omitted);
    }
    String everything = render(header, sections, Integer.MAX_VALUE, shown, omitted);
    if (bytes(everything) <= limit && omitted.values().stream().allMatch(n -> n == 0)) {
      return finish(everything, limit, shown, omitted);
    }
    // The last line's length depends on what it omits, which depends on the room it leaves:
    // start from the shortest line and widen the reserve until the brief and its line fit.
    int reserve = 0;
    while (true) {
      String text = render(header, sections, limit - reserve, shown, omitted);
      long needed = tokens(text) + unshownBytes(sections, shown) / BYTES_PER_TOKEN + 1;
      String line =
          omissionLine(
              sections, omitted, moreCall.apply(Math.min(roundUp(needed + 100), maxBudget)));
      int lineBytes = bytes(line) + 2;
      if (bytes(text) + lineBytes <= limit || lineBytes <= reserve) {
        return finish(text + "\n" + line + "\n", limit, shown, omitted);
      }
      reserve = lineBytes;
    }
  }

  /**
   * Renders the sections into at most {@code room} bytes, recording what it shows and omits.
   * Rendering stops at the first item that does not fit.
   */
  private static String render(
      String header,
      List<Section> sections,
      int room,
      Map<String, List<String>> shown,
      Map<String, Long> omitted) {
    shown.clear();
    omitted.clear();
    StringBuilder out = new StringBuilder(header);
    int used = bytes(header);
    boolean stopped = false;
    for (Section section : sections) {
      List<String> ids = new ArrayList<>();
      if (!stopped && !section.items().isEmpty()) {
        String fence = fence(section.items());
        String open = "\n## " + section.title() + "\n" + fence + "text\n";
        String close = fence + "\n";
        StringBuilder body = new StringBuilder();
        int frame = bytes(open) + bytes(close);
        for (Item item : section.items()) {
          String entry = entry(item);
          int cost = bytes(entry) + (ids.isEmpty() ? frame : 0);
          if (used + cost <= room) {
            body.append(entry);
            ids.add(item.id());
            used += cost;
            continue;
          }
          int left = room - used - (ids.isEmpty() ? frame : 0);
          if (left >= MIN_ITEM_BYTES) {
            String cut = cutToBytes(entry.substring(0, entry.length() - 1), left - 4) + "…\n";
            body.append(cut);
            ids.add(item.id());
            used += bytes(cut) + (ids.size() == 1 ? frame : 0);
          }
          stopped = true;
          break;
        }
        if (!ids.isEmpty()) {
          out.append(open).append(body).append(close);
        }
      }
      if (!ids.isEmpty()) {
        shown.put(section.name(), ids);
      }
      omitted.put(section.name(), section.total() - ids.size());
    }
    return out.toString();
  }

  /** One item's line: {@code [attribution] text}, one line, cut at {@link #MAX_ITEM_BYTES}. */
  private static String entry(Item item) {
    String line = "[" + item.attribution() + "] " + item.text().replaceAll("\\s+", " ").strip();
    if (bytes(line) > MAX_ITEM_BYTES) {
      line = cutToBytes(line, MAX_ITEM_BYTES - 3) + "…";
    }
    return line + "\n";
  }

  /** A fence longer than any run of backticks in the items, so that none can close it. */
  private static String fence(List<Item> items) {
    StringBuilder quoted = new StringBuilder();
    for (Item item : items) {
      quoted.append(item.attribution()).append('\n').append(item.text()).append('\n');
    }
    return QuotedMemory.fence(quoted);
  }

  private static String omissionLine(
      List<Section> sections, Map<String, Long> omitted, String call) {
    List<String> counts = new ArrayList<>();
    for (Section section : sections) {
      long n = omitted.getOrDefault(section.name(), 0L);
      if (n > 0) {
        counts.add(n + " " + section.name());
      }
    }
    return "_Not shown for lack of budget: " + String.join(", ", counts) + ". More: " + call + "_";
  }

  /** The size of what is not shown: the items not written, and about 200 bytes each beyond. */
  private static long unshownBytes(List<Section> sections, Map<String, List<String>> shown) {
    long total = 0;
    for (Section section : sections) {
      List<String> ids = shown.getOrDefault(section.name(), List.of());
      for (Item item : section.items()) {
        if (!ids.contains(item.id())) {
          total += bytes(entry(item));
        }
      }
      total += (section.total() - section.items().size()) * 200;
    }
    return total;
  }

  private static int roundUp(long tokens) {
    return (int) ((tokens + 499) / 500 * 500);
  }

  /** The brief, cut at the limit in the unlikely case that its fixed parts alone exceed it. */
  private static Brief finish(
      String text, int limit, Map<String, List<String>> shown, Map<String, Long> omitted) {
    String within = bytes(text) <= limit ? text : cutToBytes(text, limit);
    return new Brief(within, tokens(within), Map.copyOf(shown), Map.copyOf(omitted));
  }

  static int bytes(String text) {
    return BriefBudget.utf8Bytes(text);
  }

  /** The longest prefix of {@code text} of at most {@code max} bytes, not splitting a character. */
  static String cutToBytes(String text, int max) {
    if (max <= 0) {
      return "";
    }
    byte[] encoded = text.getBytes(StandardCharsets.UTF_8);
    if (encoded.length <= max) {
      return text;
    }
    int end = max;
    while (end > 0 && (encoded[end] & 0xC0) == 0x80) {
      end--;
    }
    return new String(encoded, 0, end, StandardCharsets.UTF_8);
  }
}
