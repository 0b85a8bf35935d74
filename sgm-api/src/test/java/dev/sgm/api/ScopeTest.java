package dev.sgm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ScopeTest {
  @Test
  void canonicalFormSortsKeysAndEncodesReservedCharacters() {
    Scope scope = Scope.of("session", "s1", "project", "alpha");
    assertEquals("project=alpha;session=s1", scope.canonical());
    assertEquals("project=a%3Bb%3Dc%3Ad%2Fe%25f", Scope.of("project", "a;b=c:d/e%f").canonical());
    assertEquals("project=x;team=y%3Dz", Scope.of("project", "x", "team", "y=z").canonical());
    assertEquals(
        "project=x%3Bteam%3Dy;team=z", Scope.of("project", "x;team=y", "team", "z").canonical());
  }

  @Test
  void canonicalFormRoundTrips() {
    Scope scope = Scope.of("project", "a;b=c:d/e%f", "agent", "Zoë 山田");
    assertEquals(scope, Scope.parseCanonical(scope.canonical()));
    assertEquals(scope.pairs(), Scope.parseCanonical(scope.canonical()).pairs());
  }

  @Test
  void qualifiedReferenceSplitsAtTheFirstColon() {
    Scope scope = Scope.of("project", "a:b");
    String qualified = scope.qualify("id:with:colons");
    assertEquals("project=a%3Ab:id:with:colons", qualified);
    Map.Entry<Scope, String> parsed = Scope.parseQualified(qualified);
    assertEquals(scope, parsed.getKey());
    assertEquals("id:with:colons", parsed.getValue());
  }

  @Test
  void containmentAndAncestors() {
    Scope project = Scope.of("project", "alpha");
    Scope session = Scope.of("project", "alpha", "session", "s1");
    Scope sibling = Scope.of("project", "beta");
    assertTrue(project.contains(session));
    assertTrue(session.isNarrowerThan(project));
    assertFalse(project.isNarrowerThan(session));
    assertFalse(project.contains(sibling));
    assertFalse(project.isNarrowerThan(project));
    assertEquals(3, session.selfAndAncestors().size());
    assertTrue(session.selfAndAncestors().contains(project));
    assertTrue(session.selfAndAncestors().contains(Scope.of("session", "s1")));
  }

  @Test
  void invalidScopesNameTheField() {
    SgmException e = assertThrows(SgmException.class, () -> Scope.of("Project", "x"));
    assertEquals(ErrorCode.INVALID_RECORD, e.code());
    assertTrue(e.getMessage().startsWith("scope"));
    e = assertThrows(SgmException.class, () -> Scope.of("project", ""));
    assertEquals("scope.project", e.details().get(0).field());
    assertThrows(SgmException.class, () -> Scope.of("project", "x".repeat(257)));
    assertEquals(
        256, Scope.of("project", "😀".repeat(256)).pairs().get("project").codePointCount(0, 512));
    assertThrows(SgmException.class, () -> Scope.of("project", "a\nb"));
    assertThrows(SgmException.class, () -> Scope.parseCanonical("project"));
  }
}
