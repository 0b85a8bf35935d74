package dev.sgm.search;

/**
 * How to read one embedding model's similarities on {@link Relevance}'s shared scale: no two models
 * share one, so each states its own, measured on data (the core hands the active model's on with
 * the query's vectors).
 *
 * @param recordFloor the cosine of the query's matching vector ({@link SearchQuery#matchingVector})
 *     from which a record matches by meaning; below it, semantic never returns a record and hybrid
 *     only if it holds one of the query's words
 * @param queryFloor the matching cosine the best of the records closest by the ordering vector must
 *     reach for a query none of whose words they hold to match anything there by meaning; below it,
 *     the question is about nothing stored (a model finds some likeness in any two texts; a held
 *     word is evidence enough that the question is about something there)
 * @param meaningWeight the weight of meaning in a hybrid score; words have the rest
 * @param scoreFloor the similarity of the query's ordering vector at which a matching record scores
 *     0 by meaning (1 at similarity 1)
 */
public record MeaningScale(
    double recordFloor, double queryFloor, double meaningWeight, double scoreFloor) {
  /** Checks that the floors are ordered and that both meaning and words count in a hybrid score. */
  public MeaningScale {
    if (!(recordFloor >= -1 && recordFloor < 1 && queryFloor >= recordFloor && queryFloor <= 1)) {
      throw new IllegalArgumentException(
          "floors must satisfy -1 <= recordFloor < 1 and recordFloor <= queryFloor <= 1");
    }
    if (!(meaningWeight > 0 && meaningWeight < 1)) {
      throw new IllegalArgumentException("meaningWeight must be in (0, 1): " + meaningWeight);
    }
    if (!(scoreFloor >= -1 && scoreFloor < 1)) {
      throw new IllegalArgumentException("scoreFloor must be in [-1, 1): " + scoreFloor);
    }
  }

  /** The scale of a model whose one vector both orders and matches. */
  public MeaningScale(double recordFloor, double queryFloor, double meaningWeight) {
    this(recordFloor, queryFloor, meaningWeight, recordFloor);
  }

  /** An ordering similarity on the shared scale: 0 at or below the score floor, 1 at 1. */
  double meaning(double similarity) {
    return Math.max(0, Math.min(1, (similarity - scoreFloor) / (1 - scoreFloor)));
  }

  /** The weight of words in a hybrid score. */
  double wordsWeight() {
    return 1 - meaningWeight;
  }
}
