package dev.sgm.search;

/**
 * How to read one embedding model's cosine similarities on {@link Relevance}'s shared scale: no two
 * models share one, so each states its own, measured on data (the core hands the active model's on
 * with the query's vector).
 *
 * @param recordFloor the cosine from which a record matches by meaning, scoring 0 there and 1 at
 *     cosine 1; below it, semantic never returns a record and hybrid only if it holds one of the
 *     query's words
 * @param queryFloor the cosine the closest searched record must reach for a query none of whose
 *     words they hold to match anything there by meaning; below it, the question is about nothing
 *     stored (a model finds some likeness in any two texts; a held word is evidence enough that the
 *     question is about something there)
 * @param meaningWeight the weight of meaning in a hybrid score; words have the rest
 */
public record MeaningScale(double recordFloor, double queryFloor, double meaningWeight) {
  /** Checks that the floors are ordered and that both meaning and words count in a hybrid score. */
  public MeaningScale {
    if (!(recordFloor >= -1 && recordFloor < 1 && queryFloor >= recordFloor && queryFloor <= 1)) {
      throw new IllegalArgumentException(
          "floors must satisfy -1 <= recordFloor < 1 and recordFloor <= queryFloor <= 1");
    }
    if (!(meaningWeight > 0 && meaningWeight < 1)) {
      throw new IllegalArgumentException("meaningWeight must be in (0, 1): " + meaningWeight);
    }
  }

  /** A cosine similarity on the shared scale: 0 at or below the record floor, 1 at cosine 1. */
  double meaning(double cosine) {
    return Math.max(0, Math.min(1, (cosine - recordFloor) / (1 - recordFloor)));
  }

  /** The weight of words in a hybrid score. */
  double wordsWeight() {
    return 1 - meaningWeight;
  }
}
