package dev.sgm.transport.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The {@code authorization} metadata over real gRPC: UNAUTHENTICATED, PERMISSION_DENIED, grants.
 */
class GrpcAuthTest {
  @Test
  void callsNeedATokenAndKeepToItsGrants() throws Exception {
    try (GrpcServers.Running server = GrpcServers.start("auth.enabled", "true")) {
      String token =
          server
              .runtime()
              .tokens()
              .create(
                  "bob",
                  List.of(Grants.Grant.parse("project=alpha:read")),
                  Set.of("*"),
                  Sensitivity.SECRET,
                  null)
              .token();
      String target = server.transport().endpoints().get(0);
      SgmException anonymous =
          assertThrows(SgmException.class, () -> server.client().call("discover", Json.object()));
      assertEquals(ErrorCode.UNAUTHENTICATED, anonymous.code());
      try (SgmGrpcClient wrong = new SgmGrpcClient(target, Duration.ofSeconds(10), "sgm_x");
          SgmGrpcClient bob = new SgmGrpcClient(target, Duration.ofSeconds(10), token)) {
        assertEquals(
            ErrorCode.UNAUTHENTICATED,
            assertThrows(SgmException.class, () -> wrong.call("whoami", Json.object())).code());
        JsonNode whoami = bob.call("whoami", Json.object());
        assertEquals("bob", whoami.path("principal").asText());
        JsonNode page = bob.call("retrieve", Json.parse("{\"scope\":{\"project\":\"alpha\"}}"));
        assertEquals(0, page.path("total").asInt());
        SgmException write =
            assertThrows(
                SgmException.class,
                () ->
                    bob.call(
                        "store",
                        Json.parse(
                            "{\"record\":{\"id\":\"n\",\"type\":\"note\",\"scope\":{\"project\":\"alpha\"},"
                                + "\"provenance\":{\"agent\":\"a\"}}}")));
        assertEquals(ErrorCode.FORBIDDEN, write.code(), write.getMessage());
        SgmException other =
            assertThrows(
                SgmException.class,
                () ->
                    bob.call(
                        "read", Json.parse("{\"scope\":{\"project\":\"beta\"},\"id\":\"n\"}")));
        assertEquals(ErrorCode.FORBIDDEN, other.code());
      }
    }
  }

  @Test
  void anAddressThatKeepsPresentingBadTokensIsToldToComeBackLater() throws Exception {
    try (GrpcServers.Running server =
        GrpcServers.start("auth.enabled", "true", "auth.failure-limit", "3")) {
      String target = server.transport().endpoints().get(0);
      try (SgmGrpcClient wrong = new SgmGrpcClient(target, Duration.ofSeconds(10), "sgm_x")) {
        for (int i = 0; i < 3; i++) {
          assertEquals(
              ErrorCode.UNAUTHENTICATED,
              assertThrows(SgmException.class, () -> wrong.call("whoami", Json.object())).code());
        }
        SgmException throttled =
            assertThrows(SgmException.class, () -> wrong.call("whoami", Json.object()));
        assertEquals(ErrorCode.UNAVAILABLE, throttled.code(), throttled.getMessage());
        assertTrue(throttled.getMessage().contains("too many failed"), throttled.getMessage());
      }
    }
  }
}
