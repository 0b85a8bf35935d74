package dev.sgm.api;

/**
 * The budget of a brief ({@code context.brief}, {@code sgm context}): its bounds, and how its
 * tokens are counted, which every writer and reader of a brief shares.
 */
public final class BriefBudget {
  /** The smallest budget: room for the brief's first lines and a few records. */
  public static final int MIN = 100;

  /** The largest budget. */
  public static final int MAX = 100_000;

  /** The budget when none is given. */
  public static final int DEFAULT = 1500;

  /**
   * How tokens are counted: one per three bytes of UTF-8, rounded up. The tokenizers of Claude and
   * GPT models take about four bytes of English a token, and ids, dates and code nearer three, so a
   * brief within its budget here is within it in their tokens too, in all but odd text.
   */
  public static final int BYTES_PER_TOKEN = 3;

  private BriefBudget() {}

  /** The size of {@code text} in tokens, as every budget counts it. */
  public static int tokens(String text) {
    return (utf8Bytes(text) + BYTES_PER_TOKEN - 1) / BYTES_PER_TOKEN;
  }

  /** The length of {@code text} in UTF-8, without encoding it. */
  public static int utf8Bytes(String text) {
    int bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < text.length()) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}
