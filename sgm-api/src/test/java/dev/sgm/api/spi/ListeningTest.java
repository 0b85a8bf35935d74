package dev.sgm.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ListeningTest {
  @Test
  void aPortIsTheConfiguredOneOrTheDefault() {
    assertEquals(7410, Listening.port(Config.empty(), "http.port", 7410));
    assertEquals(0, Listening.port(Config.of(Map.of("http.port", "0")), "http.port", 7410));
    assertEquals(65535, Listening.port(Config.of(Map.of("mcp.port", "65535")), "mcp.port", 7412));
  }

  @Test
  void aPortOutsideTheRangeIsRefusedNamingItsKey() {
    for (String bad : new String[] {"-1", "65536"}) {
      SgmException e =
          assertThrows(
              SgmException.class,
              () -> Listening.port(Config.of(Map.of("mcp.port", bad)), "mcp.port", 7412));
      assertEquals(ErrorCode.INVALID_REQUEST, e.code());
      assertEquals("configuration mcp.port: " + bad + " is not a port", e.getMessage());
    }
  }

  @Test
  void offLoopbackNeedsAuthenticationAndTlsOrAnExplicitPlaintextOptIn() {
    Listening.check("127.0.0.1", "http.host", false, false, false);
    SgmException open =
        assertThrows(
            SgmException.class, () -> Listening.check("0.0.0.0", "http.host", false, true, true));
    assertEquals(ErrorCode.FORBIDDEN, open.code());
    org.junit.jupiter.api.Assertions.assertTrue(
        open.getMessage().contains("needs authentication"), open.getMessage());
    SgmException plain =
        assertThrows(
            SgmException.class, () -> Listening.check("0.0.0.0", "grpc.host", true, false, false));
    org.junit.jupiter.api.Assertions.assertTrue(
        plain.getMessage().contains("needs TLS"), plain.getMessage());
    Listening.check("0.0.0.0", "grpc.host", true, true, false);
    Listening.check("0.0.0.0", "mcp.host", true, false, true);
  }
}
