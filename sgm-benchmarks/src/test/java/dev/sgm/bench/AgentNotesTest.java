package dev.sgm.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class AgentNotesTest {
  @Test
  void oneSeedGivesTheSameNotesAndAnotherSeedOthers() {
    List<String> a = IntStream.range(0, 50).mapToObj(i -> "").toList();
    AgentNotes first = new AgentNotes(1);
    AgentNotes again = new AgentNotes(1);
    AgentNotes other = new AgentNotes(2);
    List<String> notes = a.stream().map(x -> first.next()).toList();
    assertEquals(notes, a.stream().map(x -> again.next()).toList());
    assertNotEquals(notes, a.stream().map(x -> other.next()).toList());
    for (String note : notes) {
      long sentences = note.chars().filter(c -> c == '.').count();
      assertTrue(note.endsWith(".") && sentences >= 2, note);
    }
    assertTrue(notes.stream().distinct().count() > 45, "notes should vary: " + notes);
  }
}
