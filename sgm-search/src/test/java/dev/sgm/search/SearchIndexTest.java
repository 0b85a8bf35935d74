package dev.sgm.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SearchIndexTest {
  /** Floors at cosine 0.5 and 0.6, meaning and words weighed alike. */
  private static final MeaningScale SCALE = new MeaningScale(0.5, 0.6, 0.5);

  private static IndexedRecord record(long row, String scope, String type, String content) {
    return new IndexedRecord(
        scope + ":" + row,
        row,
        scope,
        List.of(scope),
        "r" + row,
        type,
        List.of(),
        List.of(),
        null,
        content,
        row,
        row,
        row,
        1,
        null,
        0,
        0);
  }

  private static SearchQuery query(
      String scope,
      String text,
      int limit,
      SearchQuery.After after,
      SearchQuery.Frozen frozen,
      List<String> types) {
    return SearchQuery.of(text, SearchQuery.Ranking.TEXT, limit)
        .scopes(Set.of(scope))
        .types(types)
        .after(after, frozen)
        .build();
  }

  /**
   * Each record's hybrid score worked out from the index's text (BM25) and semantic rankings: half
   * by words on the shared scale, given the query's idf, half by meaning.
   */
  private static java.util.Map<Long, Double> fused(
      SearchResult text, SearchResult meaning, double idf) {
    java.util.Map<Long, Double> fused = new java.util.HashMap<>();
    for (SearchResult.Hit hit : text.hits()) {
      fused.merge(hit.rowKey(), 0.5 * hit.value() / (hit.value() + 0.5 * idf), Double::sum);
    }
    for (SearchResult.Hit hit : meaning.hits()) {
      fused.merge(hit.rowKey(), 0.5 * hit.value(), Double::sum);
    }
    return fused;
  }

  /** The query vector the hybrid tests rank by closeness to. */
  private static final float[] EAST = {1f, 0f};

  /** The scale of the tests of two models side by side: bge-like floors, a score floor of 0.4. */
  private static final MeaningScale SIDES = new MeaningScale(0.5, 0.6, 0.5, 0.4);

  /** The index's own text ranking of "release" in scope p=a, {@code depth} deep. */
  private static SearchResult byTheWordRelease(SearchIndex index, int depth) throws Exception {
    return index.search(
        SearchQuery.of("release", SearchQuery.Ranking.TEXT, depth).scopes(Set.of("p=a")).build());
  }

  /** The index's own semantic ranking by closeness to {@link #EAST} in scope p=a. */
  private static SearchResult byClosenessToEast(SearchIndex index, int depth) throws Exception {
    return index.search(
        SearchQuery.of(null, SearchQuery.Ranking.SEMANTIC, depth)
            .scopes(Set.of("p=a"))
            .vector(EAST, SCALE)
            .build());
  }

  /** The best {@code n} rows of {@code scores}, ties by row key, newest first. */
  private static List<Long> bestFirst(java.util.Map<Long, Double> scores, int n) {
    return scores.entrySet().stream()
        .sorted(
            java.util.Map.Entry.<Long, Double>comparingByValue()
                .thenComparing(java.util.Map.Entry.comparingByKey())
                .reversed())
        .map(java.util.Map.Entry::getKey)
        .limit(n)
        .toList();
  }

  @Test
  void analysisStemsDropsFunctionWordsAndKeepsIdentifiers() {
    assertEquals(List.of("build", "tool"), TextAnalysis.terms("What build tools do we use?"));
    assertEquals(List.of("connect", "pool"), TextAnalysis.terms("connections pooling"));
    assertEquals(
        List.of("hikaricp", "user_id", "v1.2"), TextAnalysis.terms("HikariCP user_id v1.2"));
    assertEquals(List.of("what", "is", "it"), TextAnalysis.terms("what is it"));
  }

  @Test
  void aWordInTheTitleOrTagsWeighsMoreThanInTheContentEvenWhenFewRecordsHaveTitles()
      throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      for (int i = 1; i <= 20; i++) {
        index.put(record(i, "p=a", "note", "filler text number " + i));
      }
      index.put(record(100, "p=a", "note", "the deployment checklist"));
      index.put(
          new IndexedRecord(
              "p=a:101",
              101,
              "p=a",
              List.of("p=a"),
              "r101",
              "note",
              List.of(),
              List.of(),
              "Deployment",
              "the checklist",
              101,
              101,
              101,
              1,
              null,
              0,
              0));
      index.put(
          new IndexedRecord(
              "p=a:102",
              102,
              "p=a",
              List.of("p=a"),
              "r102",
              "note",
              List.of("deployment"),
              List.of(),
              null,
              "the checklist",
              102,
              102,
              102,
              1,
              null,
              0,
              0));
      index.refresh();
      SearchResult found = index.search(query("p=a", "deployment", 10, null, null, List.of()));
      assertEquals(
          List.of(101L, 102L, 100L), found.hits().stream().map(SearchResult.Hit::rowKey).toList());
    }
  }

  @Test
  void ranksAnyTermMatchesFiltersInsideAndPagesStably() throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      index.put(record(1, "p=a", "note", "The build uses Maven and the wrapper"));
      index.put(record(2, "p=a", "note", "Maven"));
      index.put(record(3, "p=a", "fact", "We had pizza"));
      index.put(record(4, "p=b", "note", "The build uses Maven"));
      for (int i = 10; i < 40; i++) {
        index.put(record(i, "p=a", i % 2 == 0 ? "fact" : "note", "maven build number " + i));
      }
      index.refresh();
      SearchResult all =
          index.search(query("p=a", "which build tool uses maven", 100, null, null, List.of()));
      assertEquals(32, all.total());
      assertFalse(all.hits().stream().anyMatch(h -> h.rowKey() == 4 || h.rowKey() == 3));
      for (int i = 1; i < all.hits().size(); i++) {
        assertTrue(all.hits().get(i - 1).value() >= all.hits().get(i).value());
      }
      SearchResult facts = index.search(query("p=a", "maven", 5, null, null, List.of("fact")));
      assertEquals(5, facts.hits().size());
      assertEquals(15, facts.total());
      // Paging with the first page's statistics while matching records arrive elsewhere.
      SearchResult first = index.search(query("p=a", "maven build", 10, null, null, List.of()));
      for (int i = 100; i < 200; i++) {
        index.put(record(i, "p=z", "note", "maven maven build"));
      }
      index.refresh();
      SearchResult.Hit last = first.hits().get(first.hits().size() - 1);
      SearchResult second =
          index.search(
              query(
                  "p=a",
                  "maven build",
                  100,
                  new SearchQuery.After(last.value(), last.rowKey()),
                  first.frozen(),
                  List.of()));
      SearchResult whole =
          index.search(query("p=a", "maven build", 100, null, first.frozen(), List.of()));
      assertEquals(whole.hits().subList(10, whole.hits().size()), second.hits());
      String encoded = first.frozen().statistics().encode();
      SearchResult again =
          index.search(
              query(
                  "p=a",
                  "maven build",
                  100,
                  new SearchQuery.After(last.value(), last.rowKey()),
                  new SearchQuery.Frozen(Statistics.decode(encoded)),
                  List.of()));
      assertEquals(second.hits(), again.hits());
    }
  }

  private static IndexedRecord leveled(
      long row, String scope, String title, String content, float[] vector, int level) {
    return new IndexedRecord(
        scope + ":" + row,
        row,
        scope,
        List.of(scope),
        "r" + row,
        "note",
        List.of(),
        List.of("data.state\u0000s:hush"),
        title,
        content,
        row,
        row,
        row,
        1,
        vector,
        0,
        level);
  }

  private static SearchQuery restricted(
      String text,
      SearchQuery.Ranking ranking,
      float[] vector,
      List<List<String>> within,
      int clearance,
      List<String> withheldFields) {
    return SearchQuery.of(text, ranking, 10)
        .vector(vector, SCALE)
        .within(within)
        .clearance(clearance, withheldFields)
        .build();
  }

  private static List<Long> rows(SearchResult result) {
    return result.hits().stream().map(SearchResult.Hit::rowKey).toList();
  }

  @Test
  void aRecordAboveTheClearanceIsFoundByWhatItShowsAloneAndOnlyWithinTheReadableScopes()
      throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      float[] east = {1f, 0f};
      float[] north = {0f, 1f};
      index.put(leveled(1, "p=a", null, "merger plans", east, 0));
      index.put(leveled(2, "p=a", "roadmap", "merger talks", east, 3));
      index.put(leveled(3, "p=a", null, "lunch", north, 0));
      index.put(leveled(4, "p=b", null, "merger", east, 0));
      index.refresh();
      List<List<String>> onlyA = List.of(List.of("p=a"));
      int internal = 1;
      int all = SearchQuery.ALL_LEVELS;
      SearchQuery.Ranking text = SearchQuery.Ranking.TEXT;

      SearchResult byContent =
          index.search(restricted("merger", text, null, onlyA, internal, List.of()));
      assertEquals(List.of(1L), rows(byContent), "withheld content finds nothing");
      assertEquals(1, byContent.total());
      assertEquals(
          List.of(1L, 2L),
          rows(index.search(restricted("merger", text, null, onlyA, all, List.of()))).stream()
              .sorted()
              .toList());
      assertEquals(
          List.of(2L),
          rows(index.search(restricted("roadmap", text, null, onlyA, internal, List.of()))),
          "the title it shows still finds it");

      SearchResult byMeaning =
          index.search(
              restricted(null, SearchQuery.Ranking.SEMANTIC, east, onlyA, internal, List.of()));
      assertEquals(
          List.of(1L), rows(byMeaning), "the withheld one is not ranked by meaning; lunch is far");
      assertEquals(1, byMeaning.total());
      SearchResult whole =
          index.search(restricted(null, SearchQuery.Ranking.SEMANTIC, east, onlyA, all, List.of()));
      assertEquals(
          List.of(1L, 2L), rows(whole).stream().sorted().toList(), "seen whole, it is ranked");

      List<String> hush = List.of("data.state\u0000s:hush");
      assertEquals(
          List.of(1L, 3L),
          rows(index.search(restricted(null, text, null, onlyA, internal, hush))),
          "withheld data matches nothing");
      assertEquals(
          List.of(1L, 2L, 3L), rows(index.search(restricted(null, text, null, onlyA, all, hush))));
      assertEquals(
          List.of(1L, 2L, 3L, 4L),
          rows(index.search(restricted(null, text, null, null, all, List.of()))));
      SearchResult none = index.search(restricted("merger", text, null, List.of(), all, List.of()));
      assertEquals(List.of(), rows(none), "no readable scope, nothing");
      assertEquals(0, none.total());
    }
  }

  @Test
  void aSearchByMeaningRanksAcrossEverySegmentAndKeepsToTheFilter() throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      List<Long> inA = new ArrayList<>();
      // Each refresh writes a segment: eight of them, each holding records of both scopes.
      for (int segment = 0; segment < 8; segment++) {
        for (int i = 0; i < 30; i++) {
          long row = segment * 30L + i;
          String scope = row % 3 == 0 ? "p=a" : "p=b";
          double angle = (row * 7919 % 240) * Math.PI / 480;
          float[] vector = {(float) Math.cos(angle), (float) Math.sin(angle)};
          index.put(leveled(row, scope, null, "note " + row, vector, 0));
          if (scope.equals("p=a")) {
            inA.add(row);
          }
        }
        index.refresh();
      }
      // Closest to east first: the smallest angle.
      List<Long> expected =
          inA.stream().sorted(Comparator.comparingLong(row -> row * 7919 % 240)).limit(10).toList();
      SearchQuery byMeaning =
          SearchQuery.of(null, SearchQuery.Ranking.SEMANTIC, 10)
              .scopes(Set.of("p=a"))
              .vector(new float[] {1f, 0f}, SCALE)
              .build();
      assertEquals(expected, rows(index.search(byMeaning)));
    }
  }

  @Test
  void aSearchByMeaningSeesWhatChangedSinceTheSameFilterWasLastAsked() throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      // Two segments, each with more records of the scope than a graph search of it would visit
      // exactly, then a third: the passed records of each segment are kept between searches.
      java.util.Map<Long, Double> angles = new java.util.TreeMap<>();
      for (int segment = 0; segment < 2; segment++) {
        for (int i = 0; i < 200; i++) {
          long row = segment * 200L + i;
          double angle = (row * 7919 % 400) * Math.PI / 800;
          String scope = row % 2 == 0 ? "p=a" : "p=b";
          index.put(leveled(row, scope, null, "note " + row, atAngle(angle), 0));
          if (scope.equals("p=a")) {
            angles.put(row, angle);
          }
        }
        index.refresh();
      }
      SearchQuery byMeaning =
          SearchQuery.of(null, SearchQuery.Ranking.SEMANTIC, 10)
              .scopes(Set.of("p=a"))
              .vector(new float[] {1f, 0f}, SCALE)
              .build();
      assertEquals(closest(angles, 10), rows(index.search(byMeaning)));
      // Deleted (too few for the segments to be merged away), moved away in meaning, and a new
      // record nearer than any: a page as long as the search's candidates shows each of them.
      List<Long> before = closest(angles, 31);
      for (long row : before.subList(0, 30)) {
        index.delete("p=a:" + row);
        angles.remove(row);
      }
      long moved = before.get(30);
      index.put(leveled(moved, "p=a", null, "moved", atAngle(Math.PI / 2), 0));
      angles.put(moved, Math.PI / 2);
      index.put(leveled(1000, "p=a", null, "new", atAngle(0), 0));
      angles.put(1000L, 0.0);
      index.refresh();
      List<Long> after =
          rows(
              index.search(
                  SearchQuery.of(null, SearchQuery.Ranking.SEMANTIC, SearchIndex.HYBRID_DEPTH)
                      .scopes(Set.of("p=a"))
                      .vector(new float[] {1f, 0f}, SCALE)
                      .build()));
      assertEquals(closest(angles, SearchIndex.HYBRID_DEPTH), after);
      assertEquals(1000L, after.get(0));
    }
  }

  private static float[] atAngle(double angle) {
    return new float[] {(float) Math.cos(angle), (float) Math.sin(angle)};
  }

  /** The {@code n} rows of the smallest angle, ties by the newest row. */
  private static List<Long> closest(java.util.Map<Long, Double> angles, int n) {
    return angles.entrySet().stream()
        .sorted(
            java.util.Map.Entry.<Long, Double>comparingByValue()
                .thenComparing(java.util.Map.Entry.<Long, Double>comparingByKey().reversed()))
        .limit(n)
        .map(java.util.Map.Entry::getKey)
        .toList();
  }

  @Test
  void aHybridSearchFusesTheTextAndTheMeaningRankingsOfItsScope() throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      String[] words = {"release", "pool", "release and release again", "lunch"};
      for (int segment = 0; segment < 4; segment++) {
        for (int i = 0; i < 40; i++) {
          long row = segment * 40L + i;
          String scope = row % 4 == 0 ? "p=b" : "p=a";
          double angle = (row * 7919 % 160) * Math.PI / 320;
          float[] vector = {(float) Math.cos(angle), (float) Math.sin(angle)};
          String content = "note " + row + " " + words[(int) (row / 3 % words.length)];
          index.put(leveled(row, scope, null, content, vector, 0));
        }
        index.refresh();
      }
      int depth = SearchIndex.HYBRID_DEPTH;
      SearchResult text = byTheWordRelease(index, depth);
      SearchResult meaning = byClosenessToEast(index, depth);
      assertTrue(text.hits().size() > 20 && text.hits().size() < depth, "some match the word");
      assertTrue(
          meaning.hits().size() > 20 && meaning.hits().size() < 120,
          "those within 60 degrees match by meaning: " + meaning.hits().size());
      assertEquals(meaning.hits().size(), meaning.total());
      // Half by words, BM25 over the query's idf (counted over the scope searched), half by
      // meaning, on the shared scale; ties by row key, newest first.
      long docs = 0;
      long df = 0;
      for (long row = 0; row < 160; row++) {
        if (row % 4 != 0) {
          docs++;
          if (words[(int) (row / 3 % words.length)].contains("release")) {
            df++;
          }
        }
      }
      double idf = Math.log(1 + (docs - df + 0.5) / (df + 0.5));
      java.util.Map<Long, Double> fused = fused(text, meaning, idf);
      List<Long> expected = bestFirst(fused, 10);
      for (int run = 0; run < 20; run++) {
        SearchResult hybrid =
            index.search(
                SearchQuery.of("release", SearchQuery.Ranking.HYBRID, 10)
                    .scopes(Set.of("p=a"))
                    .vector(EAST, SCALE)
                    .build());
        assertEquals(expected, rows(hybrid), "run " + run);
        for (SearchResult.Hit hit : hybrid.hits()) {
          assertEquals(fused.get(hit.rowKey()), hit.value(), 1e-9, "row " + hit.rowKey());
        }
        assertEquals(
            fused.size(), hybrid.total(), "the records holding the word or near in meaning");
      }
      assertTrue(fused.size() < 120, "a record far in meaning and without the word is no answer");
    }
  }

  @Test
  void aHybridTotalCountsARecordOnceWhenMoreHoldTheWordThanItsCandidates() throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      int records = SearchIndex.HYBRID_DEPTH * 3;
      for (long row = 0; row < records; row++) {
        double angle = row * Math.PI / 2 / records;
        float[] vector = {(float) Math.cos(angle), (float) Math.sin(angle)};
        index.put(leveled(row, "p=a", null, "release " + row, vector, 0));
      }
      index.refresh();
      SearchResult hybrid =
          index.search(
              SearchQuery.of("release", SearchQuery.Ranking.HYBRID, 10)
                  .scopes(Set.of("p=a"))
                  .vector(new float[] {1f, 0f}, SCALE)
                  .build());
      assertEquals(records, hybrid.total(), "every record holds the word, and counts once");
    }
  }

  @Test
  void hybridPagesRankEveryRecordWhenAWordIsInAllOfThem() throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      int records = SearchIndex.HYBRID_DEPTH * 3;
      for (long row = 0; row < records; row++) {
        // Every record holds the word, as often and among as many others as its row says; closeness
        // to the query is unrelated to either.
        double angle = (row * 37 % records) * Math.PI / 2 / records;
        float[] vector = {(float) Math.cos(angle), (float) Math.sin(angle)};
        String content =
            "release ".repeat(1 + (int) (row % 3)) + "note ".repeat((int) (row * 7 % 11)) + row;
        index.put(leveled(row, "p=a", null, content, vector, 0));
        if (row % 50 == 49) {
          index.refresh();
        }
      }
      index.refresh();
      // Every record's BM25 and meaning, from the index's own text and semantic rankings.
      SearchResult text = byTheWordRelease(index, records);
      SearchResult meaning = byClosenessToEast(index, records);
      assertEquals(records, text.hits().size());
      double idf = Math.log(1 + 0.5 / (records + 0.5));
      java.util.Map<Long, Double> fused = fused(text, meaning, idf);
      List<Long> expected = bestFirst(fused, 30);
      List<Long> paged = new java.util.ArrayList<>();
      SearchResult page = null;
      while (paged.size() < expected.size()) {
        SearchQuery.Builder next =
            SearchQuery.of("release", SearchQuery.Ranking.HYBRID, 10)
                .scopes(Set.of("p=a"))
                .vector(EAST, SCALE)
                .offset(paged.size());
        if (page != null) {
          SearchResult.Hit last = page.hits().getLast();
          next.after(new SearchQuery.After(last.value(), last.rowKey()), page.frozen());
        }
        page = index.search(next.build());
        assertEquals(records, page.total(), "every record holds the word");
        assertTrue(page.more(), "more follow");
        for (SearchResult.Hit hit : page.hits()) {
          assertEquals(fused.get(hit.rowKey()), hit.value(), 1e-9, "row " + hit.rowKey());
          paged.add(hit.rowKey());
        }
      }
      assertEquals(expected, paged, "the best of all the records, page after page");

      double floor = fused.get(expected.get(expected.size() - 1));
      SearchResult raised =
          index.search(
              SearchQuery.of("release", SearchQuery.Ranking.HYBRID, 10)
                  .scopes(Set.of("p=a"))
                  .vector(EAST, SCALE)
                  .minScore(floor)
                  .build());
      assertEquals(expected.subList(0, 10), rows(raised));
      assertEquals(
          fused.values().stream().filter(score -> score >= floor).count(),
          raised.total(),
          "with min_score, total counts the records at or above it");
    }
  }

  @Test
  void aRecordHoldingTheWordScoresByMeaningTooWhenItIsNotAmongTheClosest() throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      int records = SearchIndex.HYBRID_DEPTH * 2;
      long zebra = 7;
      for (long row = 0; row < records; row++) {
        // All within 30 degrees of the query, closer as the row key rises: the word's one record
        // (row 7) is near in meaning yet far outside the closest hundred.
        double angle = (records - row) * Math.PI / 6 / records;
        float[] vector = {(float) Math.cos(angle), (float) Math.sin(angle)};
        String content = row == zebra ? "zebra crossing " + row : "note " + row;
        index.put(leveled(row, "p=a", null, content, vector, 0));
        if (row % 50 == 49) {
          index.refresh();
        }
      }
      index.refresh();
      float[] east = {1f, 0f};
      SearchResult text =
          index.search(
              SearchQuery.of("zebra", SearchQuery.Ranking.TEXT, 10).scopes(Set.of("p=a")).build());
      SearchResult meaning =
          index.search(
              SearchQuery.of(null, SearchQuery.Ranking.SEMANTIC, 10)
                  .scopes(Set.of("p=a"))
                  .ids(List.of("r" + zebra))
                  .vector(east, SCALE)
                  .build());
      assertEquals(List.of(zebra), rows(text));
      assertEquals(List.of(zebra), rows(meaning), "it matches by meaning on its own");
      SearchResult hybrid =
          index.search(
              SearchQuery.of("zebra", SearchQuery.Ranking.HYBRID, 10)
                  .scopes(Set.of("p=a"))
                  .vector(east, SCALE)
                  .build());
      double idf = Math.log(1 + (records - 1 + 0.5) / (1 + 0.5));
      double words = text.hits().get(0).value() / (text.hits().get(0).value() + 0.5 * idf);
      SearchResult.Hit found =
          hybrid.hits().stream().filter(h -> h.rowKey() == zebra).findFirst().orElseThrow();
      assertEquals(
          0.5 * words + 0.5 * meaning.hits().get(0).value(),
          found.value(),
          1e-9,
          "half by its words, half by its meaning");
    }
  }

  @Test
  void wordsWeighByHowRareTheyAreInTheScopeSearchedNotInTheWholeIndex() throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      // Across the index "release" is common and "pool" rare; in p=b it is the other way round.
      for (long row = 0; row < 50; row++) {
        index.put(leveled(row, "p=a", null, "release " + row, null, 0));
      }
      index.put(leveled(100, "p=b", null, "release day", null, 0));
      for (long row = 101; row < 104; row++) {
        index.put(leveled(row, "p=b", null, "pool day " + row, null, 0));
      }
      index.refresh();
      SearchResult found =
          index.search(
              SearchQuery.of("release pool", SearchQuery.Ranking.TEXT, 10)
                  .scopes(Set.of("p=b"))
                  .build());
      assertEquals(100L, rows(found).get(0), "the word rare in the scope weighs most");
      assertEquals(4, found.total());
    }
  }

  @Test
  void aQueryAboutNothingStoredFindsNothingByMeaningAndOnlyWhatHoldsItsWordsInHybrid()
      throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      // Cosines to the query (east): 0.55, 0.5 and 0: the closest is below the query's floor.
      index.put(embedded(1, unit(0.55), 1));
      index.put(embedded(2, unit(0.5), 1));
      index.put(embedded(3, new float[] {0f, 1f}, 1));
      index.refresh();
      SearchQuery.Builder east =
          SearchQuery.of(null, SearchQuery.Ranking.SEMANTIC, 10)
              .scopes(Set.of("p=a"))
              .vector(new float[] {1f, 0f}, SCALE);
      SearchResult semantic = index.search(east.build());
      assertEquals(List.of(), rows(semantic));
      assertEquals(0, semantic.total());
      SearchResult hybrid =
          index.search(
              SearchQuery.of("zebra", SearchQuery.Ranking.HYBRID, 10)
                  .scopes(Set.of("p=a"))
                  .vector(new float[] {1f, 0f}, SCALE)
                  .build());
      assertEquals(List.of(), rows(hybrid));
      assertEquals(0, hybrid.total());
      SearchResult byWord =
          index.search(
              SearchQuery.of("note 3", SearchQuery.Ranking.HYBRID, 10)
                  .scopes(Set.of("p=a"))
                  .vector(new float[] {1f, 0f}, SCALE)
                  .build());
      assertEquals(3L, rows(byWord).get(0), "the record holding both words first");
      assertEquals(3, byWord.total(), "each holds the word note");

      // Once one record is close enough, those at or above the record floor match too.
      index.put(embedded(4, unit(0.9), 1));
      index.refresh();
      SearchResult close = index.search(east.build());
      assertEquals(List.of(4L, 1L, 2L), rows(close));
      assertEquals(0.8, close.hits().get(0).value(), 1e-6, "(0.9 - 0.5) / (1 - 0.5)");
      assertEquals(0.0, close.hits().get(2).value(), 1e-6, "at the floor");
      assertEquals(3, close.total());
    }
  }

  @Test
  void eachModelsScaleSetsItsFloorsAndTheWeightOfMeaning() throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      index.put(embedded(1, unit(0.9), 1));
      index.put(embedded(2, unit(0.75), 1));
      index.put(embedded(3, unit(0.65), 1));
      index.refresh();
      // A model whose unrelated texts sit near 0.7: floors at 0.7 and 0.8.
      MeaningScale compressed = new MeaningScale(0.7, 0.8, 0.6);
      SearchResult semantic =
          index.search(
              SearchQuery.of(null, SearchQuery.Ranking.SEMANTIC, 10)
                  .scopes(Set.of("p=a"))
                  .vector(new float[] {1f, 0f}, compressed)
                  .build());
      assertEquals(List.of(1L, 2L), rows(semantic), "0.65 is below this model's record floor");
      assertEquals(2, semantic.total());
      assertEquals((0.9 - 0.7) / (1 - 0.7), semantic.hits().get(0).value(), 1e-6);
      SearchResult hybrid =
          index.search(
              SearchQuery.of("note", SearchQuery.Ranking.HYBRID, 10)
                  .scopes(Set.of("p=a"))
                  .vector(new float[] {1f, 0f}, compressed)
                  .build());
      // Every record holds "note" once, so all score alike by words; meaning weighs 0.6.
      double words = hybrid.hits().get(2).value();
      assertEquals(List.of(1L, 2L, 3L), rows(hybrid));
      assertEquals(words + 0.6 * (0.9 - 0.7) / (1 - 0.7), hybrid.hits().get(0).value(), 1e-6);
      assertEquals(words + 0.6 * (0.75 - 0.7) / (1 - 0.7), hybrid.hits().get(1).value(), 1e-6);

      // With the closest below the query floor and no word held, nothing.
      SearchResult nothing =
          index.search(
              SearchQuery.of(null, SearchQuery.Ranking.SEMANTIC, 10)
                  .scopes(Set.of("p=a"))
                  .vector(new float[] {1f, 0f}, new MeaningScale(0.7, 0.95, 0.6))
                  .build());
      assertEquals(List.of(), rows(nothing));
    }
  }

  @Test
  void aSeparateMatchingVectorDecidesWhatMatchesAndTheVectorHowItRanks() throws Exception {
    // Records of two models side by side: the first two dimensions the matching model's, the last
    // two another's. The query orders by both halves and matches by the first alone.
    try (SearchIndex index = SearchIndex.inMemory()) {
      index.put(embedded(1, side(0.9, 0.2), 1));
      index.put(embedded(2, side(0.3, 1.0), 1)); // the closest overall, but not by the first half
      index.put(embedded(3, side(0.6, 0.95), 1));
      index.refresh();
      SearchResult semantic = bySides(index, null, SearchQuery.Ranking.SEMANTIC, SIDES);
      assertEquals(
          List.of(3L, 1L), rows(semantic), "2 is below the record floor by its first half");
      assertEquals(2, semantic.total());
      assertEquals(((0.6 + 0.95) / 2 - 0.4) / 0.6, semantic.hits().get(0).value(), 1e-6);
      assertEquals(((0.9 + 0.2) / 2 - 0.4) / 0.6, semantic.hits().get(1).value(), 1e-6);

      SearchResult hybrid = bySides(index, "note", SearchQuery.Ranking.HYBRID, SIDES);
      assertEquals(List.of(3L, 1L, 2L), rows(hybrid));
      double words = hybrid.hits().get(2).value(); // 2 matches by its word alone
      assertEquals(
          words + 0.5 * ((0.6 + 0.95) / 2 - 0.4) / 0.6, hybrid.hits().get(0).value(), 1e-6);

      // The query floor reads the matching cosine too: 0.9 at best.
      SearchResult nothing =
          bySides(index, null, SearchQuery.Ranking.SEMANTIC, new MeaningScale(0.5, 0.95, 0.5, 0.4));
      assertEquals(List.of(), rows(nothing));
    }
  }

  @Test
  void theMatchingCosineIsReadFromEachSegmentAndFollowsUpdatesAndDeletes() throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      // One segment each, so that records sit in several leaves at several document bases.
      index.put(embedded(1, side(0.9, 0.2), 1));
      index.refresh();
      index.put(embedded(2, side(0.8, 0.8), 1));
      index.refresh();
      index.put(embedded(3, side(0.6, 0.95), 1));
      index.refresh();
      index.put(embedded(1, side(0.3, 1.0), 2)); // now close overall, but not by its first half
      index.delete("p=a:2");
      index.put(embedded(4, side(0.7, 0.5), 2));
      index.refresh();
      SearchResult semantic = bySides(index, null, SearchQuery.Ranking.SEMANTIC, SIDES);
      assertEquals(List.of(3L, 4L), rows(semantic));
      assertEquals(((0.7 + 0.5) / 2 - 0.4) / 0.6, semantic.hits().get(1).value(), 1e-6);
    }
  }

  @Test
  void aRecordFoundByItsWordsAloneIsMatchedByTheMatchingVector() throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      // More records closer by the ordering vector than the hybrid search takes, none matching.
      for (int row = 1; row <= SearchIndex.HYBRID_DEPTH + 20; row++) {
        index.put(embedded(row, side(0.3, 1.0), 1));
      }
      index.put(embedded(1000, side(0.9, 0.1), 1, "zebra crossing"));
      index.put(embedded(1001, side(0.2, 0.1), 1, "zebra crossing"));
      index.refresh();
      SearchResult hybrid = bySides(index, "zebra", SearchQuery.Ranking.HYBRID, SIDES);
      assertEquals(List.of(1000L, 1001L), rows(hybrid));
      double words = hybrid.hits().get(1).value();
      assertEquals(words + 0.5 * ((0.9 + 0.1) / 2 - 0.4) / 0.6, hybrid.hits().get(0).value(), 1e-6);
    }
  }

  /**
   * The index's first page of ten in scope p=a for {@code text}, ordered by both halves of {@link
   * #side} vectors alike and matched by the first half's closeness to east.
   */
  private static SearchResult bySides(
      SearchIndex index, String text, SearchQuery.Ranking ranking, MeaningScale scale)
      throws Exception {
    return index.search(
        SearchQuery.of(text, ranking, 10)
            .scopes(Set.of("p=a"))
            .vector(side(1, 1), EAST, scale)
            .build());
  }

  /**
   * A unit vector of four dimensions, two models' halves side by side, whose halves' cosines to
   * east are {@code first} and {@code second}.
   */
  private static float[] side(double first, double second) {
    float[] a = unit(first);
    float[] b = unit(second);
    float half = (float) Math.sqrt(0.5);
    return new float[] {a[0] * half, a[1] * half, b[0] * half, b[1] * half};
  }

  /** A unit vector whose cosine to east is {@code cosine}. */
  private static float[] unit(double cosine) {
    return new float[] {(float) cosine, (float) Math.sqrt(1 - cosine * cosine)};
  }

  private static IndexedRecord embedded(long row, float[] vector, long generation) {
    return embedded(row, vector, generation, "note " + row);
  }

  private static IndexedRecord embedded(long row, float[] vector, long generation, String content) {
    return new IndexedRecord(
        "p=a:" + row,
        row,
        "p=a",
        List.of("p=a"),
        "r" + row,
        "note",
        List.of(),
        List.of(),
        null,
        content,
        row,
        row,
        row,
        1,
        vector,
        generation,
        0);
  }

  @Test
  void aReopenedIndexKnowsTheNewestGenerationOfItsEmbeddings(@TempDir Path dir) throws Exception {
    try (SearchIndex index = SearchIndex.create(dir)) {
      assertEquals(0, index.maxVectorGeneration(), "no embedding yet");
      index.put(embedded(1, new float[] {1f, 0f}, 7));
      index.put(embedded(2, new float[] {0f, 1f}, 3));
      index.put(embedded(3, null, 0));
      index.commit(java.util.Map.of());
    }
    try (SearchIndex index = SearchIndex.open(dir)) {
      assertEquals(7, index.maxVectorGeneration());
      SearchQuery upToSeven =
          SearchQuery.of(null, SearchQuery.Ranking.SEMANTIC, 10)
              .scopes(Set.of("p=a"))
              .vector(new float[] {0f, 1f}, SCALE)
              .vectorGeneration(index.maxVectorGeneration())
              .build();
      SearchResult found = index.search(upToSeven);
      assertEquals(
          List.of(2L), rows(found), "the far one matches nothing, the unembedded one waits");
      assertEquals(1.0, found.hits().get(0).value(), 1e-6);
    }
  }

  @Test
  void anEmbeddingNewerThanTheQuerysGenerationIsNotRankedByIt() throws Exception {
    try (SearchIndex index = SearchIndex.inMemory()) {
      index.put(embedded(1, new float[] {1f, 0f}, 1));
      index.put(embedded(2, new float[] {0.6f, 0.8f}, 1));
      index.put(embedded(3, new float[] {0f, 1f}, 2));
      index.refresh();
      SearchQuery.Builder north =
          SearchQuery.of(null, SearchQuery.Ranking.SEMANTIC, 10)
              .scopes(Set.of("p=a"))
              .vector(new float[] {0f, 1f}, SCALE);
      assertEquals(List.of(3L, 2L), rows(index.search(north.vectorGeneration(2).build())));
      SearchResult before = index.search(north.vectorGeneration(1).build());
      assertEquals(List.of(2L), rows(before), "the closest came in a later generation");
    }
  }
}
