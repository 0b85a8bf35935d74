package dev.sgm.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** Errors that say what to do when a port is taken or a server cannot be reached. */
class BindAndReachTest {
  @Test
  void aPortInUseIsNamedWithTheKeyThatChangesIt() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      SgmException e =
          assertThrows(
              SgmException.class, () -> HttpServers.start("http.port", String.valueOf(port)));
      assertEquals(ErrorCode.UNAVAILABLE, e.code());
      assertTrue(e.getMessage().contains("port " + port), e.getMessage());
      assertTrue(e.getMessage().contains("-D http.port="), e.getMessage());
      assertFalse(e.getMessage().contains("Exception"), e.getMessage());
    }
  }

  @Test
  void anUnreachableServerIsSaidInWordsNotNull() throws Exception {
    int port;
    try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = closed.getLocalPort();
    }
    SgmException e =
        assertThrows(
            SgmException.class, () -> new SgmHttpClient("http://127.0.0.1:" + port).discovery());
    assertEquals(ErrorCode.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().startsWith("cannot reach http://127.0.0.1:" + port), e.getMessage());
    assertFalse(e.getMessage().endsWith("null"), e.getMessage());
    assertTrue(e.getMessage().contains("connection refused"), e.getMessage());
  }
}
