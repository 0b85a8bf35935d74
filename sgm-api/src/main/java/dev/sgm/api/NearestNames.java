package dev.sgm.api;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The names a mistyped one was probably meant to be, for "did you mean" in errors: those within a
 * few edits of it (at most a quarter of its length, and at least two), the closest only.
 */
public final class NearestNames {
  private NearestNames() {}

  /** The offered names nearest to {@code asked}, in their order; empty when none is near. */
  public static List<String> of(String asked, Collection<String> offered) {
    int best = Math.max(2, asked.length() / 4) + 1;
    List<String> near = new ArrayList<>();
    for (String name : offered) {
      int distance = editDistance(asked, name);
      if (distance < best) {
        best = distance;
        near.clear();
      }
      if (distance == best) {
        near.add(name);
      }
    }
    return near;
  }

  /** "; did you mean 'x'?" (or "'x' or 'y'") for the nearest of {@code offered}, or nothing. */
  public static String didYouMean(String asked, Collection<String> offered) {
    List<String> near = of(asked, offered);
    return near.isEmpty()
        ? ""
        : "; did you mean "
            + String.join(" or ", near.stream().map(n -> "'" + n + "'").toList())
            + "?";
  }

  /** Levenshtein distance: insertions, deletions and substitutions. */
  static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
