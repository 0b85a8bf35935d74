package dev.sgm.transport.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The gRPC binding's own rules: errors, health, reflection, profile services, and the proto's
 * style.
 */
class GrpcProtocolTest {
  private static ManagedChannel channel(GrpcServers.Running server) {
    return NettyChannelBuilder.forTarget("127.0.0.1:" + server.transport().port())
        .usePlaintext()
        .build();
  }

  @Test
  void errorsCarryTheCodeAndTheFieldsAtFault() throws Exception {
    SgmException e =
        assertThrows(
            SgmException.class,
            () ->
                GrpcServers.shared()
                    .client()
                    .call(
                        "store",
                        Json.parse(
                            "{\"record\":{\"id\":\"x\",\"type\":\"note\",\"provenance\":{\"agent\":\"a\"}}}")));
    assertEquals(ErrorCode.INVALID_RECORD, e.code());
    assertEquals("scope", e.details().get(0).field());
    assertTrue(e.getMessage().startsWith("scope"), e.getMessage());
  }

  @Test
  void recordsStoredOverGrpcHaveOriginGrpc() throws Exception {
    JsonNode stored =
        GrpcServers.shared()
            .client()
            .call(
                "store",
                Json.parse(
                    "{\"record\":{\"id\":\"o\",\"type\":\"note\",\"scope\":{\"project\":\"grpc-origin\"},"
                        + "\"provenance\":{\"agent\":\"a\"}}}"));
    assertEquals("grpc", stored.path("record").path("provenance").path("origin").asText());
  }

  @Test
  void healthAndReflectionAreServed() throws Exception {
    GrpcServers.Running server = GrpcServers.shared();
    ManagedChannel channel = channel(server);
    try {
      HealthCheckResponse health =
          HealthGrpc.newBlockingStub(channel)
              .check(HealthCheckRequest.newBuilder().setService("sgm.v1.Memory").build());
      assertEquals(HealthCheckResponse.ServingStatus.SERVING, health.getStatus());
      CompletableFuture<Set<String>> services = new CompletableFuture<>();
      StreamObserver<ServerReflectionRequest> requests =
          ServerReflectionGrpc.newStub(channel)
              .serverReflectionInfo(
                  new StreamObserver<>() {
                    @Override
                    public void onNext(ServerReflectionResponse response) {
                      Set<String> names = new HashSet<>();
                      response
                          .getListServicesResponse()
                          .getServiceList()
                          .forEach(s -> names.add(s.getName()));
                      services.complete(names);
                    }

                    @Override
                    public void onError(Throwable t) {
                      services.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {}
                  });
      requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
      Set<String> names = services.get(10, TimeUnit.SECONDS);
      requests.onCompleted();
      assertTrue(
          names.containsAll(Set.of("sgm.v1.Memory", "sgm.v1.History", "grpc.health.v1.Health")),
          names.toString());
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void aProfileServiceIsAbsentWhenTheProfileIsDisabled() throws Exception {
    try (GrpcServers.Running server = GrpcServers.start("profiles.disabled", "history")) {
      SgmException e =
          assertThrows(
              SgmException.class,
              () ->
                  server
                      .client()
                      .call(
                          "history.versions",
                          Json.parse("{\"scope\":{\"p\":\"x\"},\"id\":\"y\"}")));
      assertEquals(ErrorCode.UNSUPPORTED_CAPABILITY, e.code(), e.getMessage());
    }
  }

  @Test
  void aNonLoopbackHostIsRefusedWithoutAuthentication() {
    SgmException e =
        assertThrows(SgmException.class, () -> GrpcServers.start("grpc.host", "0.0.0.0"));
    assertEquals(ErrorCode.FORBIDDEN, e.code());
  }

  @Test
  void retrieveModeTravelsInItsTypedField() {
    RetrieveRequest request =
        ProtoJson.fromJson(
                Json.parse(
                    "{\"scope\":{\"project\":\"p\"},\"text\":\"which database\",\"mode\":\"semantic\"}"),
                RetrieveRequest.newBuilder())
            .build();
    assertEquals("semantic", request.getMode());
    assertEquals("", request.getExtensionsJson(), "nothing left over for extensions");
    assertEquals("semantic", ProtoJson.toJson(request).path("mode").asText());
  }

  @Test
  void aTypedModeReachesTheEngine() throws Exception {
    // A client generated from the proto sets the typed field; the engine must see it (an unknown
    // mode is refused, naming the field).
    ManagedChannel channel = channel(GrpcServers.shared());
    try {
      RetrieveRequest request =
          RetrieveRequest.newBuilder()
              .addScope(ScopeEntry.newBuilder().setKey("project").setValue("typed-mode"))
              .setText("maven")
              .setMode("no-such-mode")
              .build();
      StatusRuntimeException e =
          assertThrows(
              StatusRuntimeException.class,
              () -> MemoryGrpc.newBlockingStub(channel).retrieve(request));
      SgmException error = GrpcErrors.fromStatus(e);
      assertEquals(ErrorCode.INVALID_REQUEST, error.code());
      assertEquals("mode", error.details().get(0).field(), error.getMessage());
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void retrieveScoresTravelAsDoublesAndOnlyWhenSent() {
    JsonNode ranked =
        Json.parse(
            "{\"records\":[],\"total\":2,\"scores\":[2.5,0.125],\"truncated\":{\"field\":\"text\"}}");
    RetrieveResponse response = ProtoJson.fromJson(ranked, RetrieveResponse.newBuilder()).build();
    assertEquals(List.of(2.5, 0.125), response.getScoresList());
    assertEquals("{\"truncated\":{\"field\":\"text\"}}", response.getExtensionsJson());
    assertEquals(Json.write(ranked), Json.write(ProtoJson.toJson(response)));

    JsonNode emptyRanked = Json.parse("{\"records\":[],\"total\":0,\"scores\":[]}");
    assertEquals(
        Json.write(emptyRanked),
        Json.write(
            ProtoJson.toJson(
                ProtoJson.fromJson(emptyRanked, RetrieveResponse.newBuilder()).build())),
        "an empty list of scores stays a list");

    JsonNode structured = Json.parse("{\"records\":[],\"total\":0}");
    assertEquals(
        Json.write(structured),
        Json.write(
            ProtoJson.toJson(
                ProtoJson.fromJson(structured, RetrieveResponse.newBuilder()).build())),
        "no scores where none were sent");
  }

  @Test
  void discoveryKeepsItsRetrievalObjectAndAnyOtherField() throws Exception {
    JsonNode document =
        Json.parse(
            "{\"protocol_version\":\"0.1.0\",\"retrieval\":{\"modes\":[\"text\",\"hybrid\"],"
                + "\"default_mode\":\"hybrid\",\"embedding\":{\"model\":\"m\",\"dimensions\":384}},"
                + "\"later\":{\"x\":1.0}}");
    DiscoverResponse response = ProtoJson.fromJson(document, DiscoverResponse.newBuilder()).build();
    assertTrue(response.getRetrievalJson().contains("\"dimensions\":384"));
    JsonNode back = ProtoJson.toJson(response);
    assertEquals(document.get("retrieval"), back.get("retrieval"));
    assertEquals("{\"x\":1.0}", Json.write(back.get("later")));
    // And the live server's discovery says over gRPC what it says in process.
    GrpcServers.Running server = GrpcServers.shared();
    JsonNode direct =
        server.runtime().service().invoke(dev.sgm.api.Caller.embedded(), "discover", Json.object());
    JsonNode overGrpc = server.client().call("discover", Json.object());
    Set<String> directFields = new HashSet<>();
    direct.fieldNames().forEachRemaining(directFields::add);
    Set<String> grpcFields = new HashSet<>();
    overGrpc.fieldNames().forEachRemaining(grpcFields::add);
    assertEquals(directFields, grpcFields, "no discovery field is lost");
    assertEquals(Json.write(direct.get("retrieval")), Json.write(overGrpc.get("retrieval")));
  }

  @Test
  void theProtoFollowsItsStyle() throws Exception {
    List<String> lines =
        Files.readAllLines(Path.of("..", "docs", "proto", "sgm", "v1", "sgm.proto"));
    Pattern field =
        Pattern.compile("^\\s+(optional |repeated )?([A-Za-z0-9_.]+) ([A-Za-z0-9_]+) = (\\d+);");
    Pattern declaration = Pattern.compile("^\\s*(message|service) ([A-Za-z0-9]+) \\{");
    Pattern rpc = Pattern.compile("^\\s+rpc ([A-Za-z0-9]+)\\(");
    List<String> problems = new ArrayList<>();
    Set<Integer> numbers = new HashSet<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      boolean commented = i > 0 && lines.get(i - 1).trim().startsWith("//");
      Matcher m;
      if ((m = declaration.matcher(line)).find()) {
        numbers.clear();
        if (!m.group(2).matches("[A-Z][A-Za-z0-9]*")) {
          problems.add("line " + (i + 1) + ": " + m.group(2) + " is not UpperCamelCase");
        }
        if (!commented) {
          problems.add(
              "line " + (i + 1) + ": " + m.group(1) + " " + m.group(2) + " has no comment");
        }
      } else if ((m = rpc.matcher(line)).find()) {
        if (!commented) {
          problems.add("line " + (i + 1) + ": rpc " + m.group(1) + " has no comment");
        }
      } else if ((m = field.matcher(line)).find()) {
        if (!m.group(3).matches("[a-z][a-z0-9_]*")) {
          problems.add("line " + (i + 1) + ": field " + m.group(3) + " is not lower_snake_case");
        }
        if (!numbers.add(Integer.parseInt(m.group(4)))) {
          problems.add("line " + (i + 1) + ": field number " + m.group(4) + " is used twice");
        }
        if (!commented) {
          problems.add("line " + (i + 1) + ": field " + m.group(3) + " has no comment");
        }
      }
    }
    assertEquals(List.of(), problems);
  }
}
