package dev.sgm.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import dev.sgm.bench.Locomo.Conversation;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RecallTest {
  @Test
  void countsEvidenceAmongTheFirstKOverTheEvidence() {
    List<String> ranked = List.of("a", "x", "y", "z", "w", "b", "c");
    Set<String> evidence = Set.of("a", "b", "q");
    assertEquals(1 / 3.0, Recall.at(ranked, evidence, 5), 1e-12);
    assertEquals(2 / 3.0, Recall.at(ranked, evidence, 10), 1e-12);
    assertEquals(0, Recall.at(List.of(), evidence, 25), 1e-12);
    assertEquals(1 / 3.0, Recall.at(List.of("a", "a", "a"), evidence, 5), 1e-12);
    assertThrows(IllegalArgumentException.class, () -> Recall.at(ranked, Set.of(), 5));
  }

  @Test
  void averagesOverQuestionsInPercent() {
    Recall recall = new Recall();
    recall.add(List.of("a"), Set.of("a"));
    recall.add(List.of("x", "y", "z", "w", "v", "b"), Set.of("b"));
    assertEquals(2, recall.questions());
    assertEquals(50.0, recall.percent(0), 1e-9);
    assertEquals(100.0, recall.percent(1), 1e-9);
    Recall all = new Recall();
    all.addAll(recall);
    all.add(List.of(), Set.of("c"));
    assertEquals(100 / 3.0, all.percent(0), 1e-9);
  }

  @Test
  void storesTurnsAsTheReadmeSaysAndKeepsOnlyQuestionsWithEvidenceAmongThem() {
    Conversation c =
        Locomo.parse(
            "t",
            Json.parse(
                """
                {"speaker_a": "Ann", "speaker_b": "Bo",
                 "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "Later."}],
                 "session_1_date_time": "1 May 2023",
                 "session_1": [
                   {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi!"},
                   {"speaker": "Bo", "dia_id": "D1:2", "text": "Look.", "blip_caption": "a dog"}],
                 "qa": [
                   {"question": "Who?", "answer": "Bo", "evidence": ["D1:2", "D9:9"]},
                   {"question": "Malformed", "answer": "x", "evidence": ["D1:1; D2:1"]},
                   {"question": "None", "adversarial_answer": "x", "evidence": []}]}
                """));
    assertEquals(
        List.of(
            new Locomo.Turn("D1:1", "Ann: Hi!"),
            new Locomo.Turn("D1:2", "Bo: Look. [shares a photo: a dog]"),
            new Locomo.Turn("D2:1", "Bo: Later.")),
        c.turns());
    assertEquals(List.of(new Locomo.Question("Who?", Set.of("D1:2"))), c.questions());
  }

  @Test
  void aLagOfZeroOrAFlagSaysCaughtUpAndNothingReportedSaysNothing() {
    assertEquals(
        Optional.empty(),
        SemanticLag.caughtUp(
            SemanticLag.reports(
                "retrieval", Json.parse("{\"modes\": [\"text\"], \"default_mode\": \"text\"}"))));
    Map<String, JsonNode> reports =
        SemanticLag.reports(
            "retrieval", Json.parse("{\"semantic\": {\"lag\": 12, \"caught_up\": false}}"));
    assertEquals(
        List.of("retrieval.semantic.lag", "retrieval.semantic.caught_up"),
        List.copyOf(reports.keySet()));
    assertEquals(Optional.of(false), SemanticLag.caughtUp(reports));
    assertEquals(
        Optional.of(true),
        SemanticLag.caughtUp(
            SemanticLag.reports(
                "retrieve", Json.parse("{\"records\": [], \"semantic_lag_ms\": 0}"))));
  }
}
