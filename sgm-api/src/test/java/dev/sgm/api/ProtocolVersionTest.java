package dev.sgm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ProtocolVersionTest {
  @Test
  void zeroVersionsAreCompatibleWithinTheirMinorOnly() {
    ProtocolVersion current = ProtocolVersion.parse("0.1.0");
    assertTrue(current.isCompatibleWith(ProtocolVersion.parse("0.1.7")));
    assertFalse(current.isCompatibleWith(ProtocolVersion.parse("0.2.0")));
    assertTrue(ProtocolVersion.parse("1.2.0").isCompatibleWith(ProtocolVersion.parse("1.9.1")));
    assertFalse(ProtocolVersion.parse("1.2.0").isCompatibleWith(ProtocolVersion.parse("2.0.0")));
    assertEquals("0.1.0", ProtocolVersion.parse("0.1.0-rc.1+build.5").toString());
  }

  @Test
  void notSemverIsRefusedNamingTheField() {
    SgmException e = assertThrows(SgmException.class, () -> ProtocolVersion.parse("0.1"));
    assertEquals("accept_versions", e.details().get(0).field());
  }
}
