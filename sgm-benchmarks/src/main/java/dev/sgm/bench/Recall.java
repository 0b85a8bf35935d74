package dev.sgm.bench;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Evidence recall@k, the measure of {@code shared/data/locomo-dev/README.md}: for one question, the
 * evidence turns among the first k results over the question's evidence turns; averaged over the
 * questions.
 */
final class Recall {
  /** The cut-offs reported. */
  static final int[] KS = {5, 10, 25};

  private final double[] sums = new double[KS.length];
  private int questions;

  /** Recall@k of one question: {@code ranked} is the ids in the order the retriever returned. */
  static double at(List<String> ranked, Set<String> evidence, int k) {
    if (evidence.isEmpty()) {
      throw new IllegalArgumentException("a question without evidence has no recall");
    }
    Set<String> found = new HashSet<>();
    for (String id : ranked.subList(0, Math.min(k, ranked.size()))) {
      if (evidence.contains(id)) {
        found.add(id);
      }
    }
    return found.size() / (double) evidence.size();
  }

  /** Counts one question. */
  void add(List<String> ranked, Set<String> evidence) {
    for (int i = 0; i < KS.length; i++) {
      sums[i] += at(ranked, evidence, KS[i]);
    }
    questions++;
  }

  /** Adds another tally's questions to this one. */
  void addAll(Recall other) {
    for (int i = 0; i < KS.length; i++) {
      sums[i] += other.sums[i];
    }
    questions += other.questions;
  }

  /** The mean recall at {@code KS[index]}, in percent. */
  double percent(int index) {
    return questions == 0 ? 0 : 100 * sums[index] / questions;
  }

  int questions() {
    return questions;
  }
}
