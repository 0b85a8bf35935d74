package dev.sgm.transport.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Any;
import com.google.protobuf.Message;
import com.google.rpc.ErrorInfo;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.tck.RequestFuzzer;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 10,000 mutated calls, as raw bytes, against a real server on loopback, from fixed seeds: bytes
 * that are no valid message, messages whose JSON parts are not JSON or not a valid request. None
 * may answer UNKNOWN or INTERNAL; every refusal carries the SGM error details; no description shows
 * a stack trace or SQL; and the server still answers afterwards.
 */
class GrpcFuzzTest {
  private static final int CALLS = 10_000;
  private static final int WORKERS = 4;
  private static final Set<Status.Code> BAD =
      Set.of(Status.Code.UNKNOWN, Status.Code.INTERNAL, Status.Code.DATA_LOSS);

  /** Bytes as they are: the fuzzer, not protobuf, decides what goes on the wire. */
  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  /**
   * With authentication on, most calls carry a valid token (granting the fuzzed projects), some a
   * mangled one; the limit on failed attempts is lifted so that the run keeps reaching the
   * operations.
   */
  @ParameterizedTest(name = "auth on: {0}")
  @ValueSource(booleans = {false, true})
  void mutatedCallsGetInvalidArgumentWithDetailsAndTheServerStaysUp(boolean auth) throws Exception {
    try (GrpcServers.Running server =
            auth
                ? GrpcServers.start("auth.enabled", "true", "auth.failure-limit", "1000000")
                : GrpcServers.start();
        ExecutorService workers = Executors.newFixedThreadPool(WORKERS)) {
      List<Grants.Grant> grants = new ArrayList<>();
      for (int w = 0; w < WORKERS; w++) {
        grants.add(Grants.Grant.parse("project=fuzz-" + (25_000 + w) + ":read_write"));
      }
      String token =
          auth
              ? server
                  .runtime()
                  .tokens()
                  .create("fuzzer", grants, Set.of("*"), Sensitivity.SECRET, null)
                  .token()
              : null;
      ManagedChannel channel =
          NettyChannelBuilder.forTarget("127.0.0.1:" + server.transport().port())
              .usePlaintext()
              .maxInboundMessageSize(64 * 1024 * 1024)
              .build();
      try {
        List<Future<List<String>>> results = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
          long seed = 25_000 + w;
          results.add(workers.submit(() -> fuzz(channel, token, seed, CALLS / WORKERS)));
        }
        List<String> failures = new ArrayList<>();
        for (Future<List<String>> result : results) {
          failures.addAll(result.get());
        }
        assertTrue(
            failures.isEmpty(),
            failures.size() + " bad answers, e.g. " + failures.stream().limit(5).toList());
        try (SgmGrpcClient client =
            new SgmGrpcClient(
                server.transport().endpoints().get(0), java.time.Duration.ofSeconds(10), token)) {
          JsonNode discovery = client.call("discover", Json.object());
          assertEquals("0.1.0", discovery.path("protocol_version").asText());
        }
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  private static List<String> fuzz(ManagedChannel channel, String token, long seed, int count) {
    RequestFuzzer fuzzer = new RequestFuzzer(seed, "fuzz-" + seed);
    MethodDescriptor<?, ?> invoke = MemoryGrpc.getInvokeMethod();
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      RequestFuzzer.Request request = fuzzer.next();
      MethodDescriptor<?, ?> method = GrpcOperations.method(request.operation());
      if (method == null) {
        method = invoke;
      }
      byte[] bytes = message(method, request, fuzzer).toByteArray();
      if (fuzzer.nextInt(2) == 0) {
        bytes = fuzzer.mutateBytes(bytes);
      }
      MethodDescriptor<byte[], byte[]> raw = method.toBuilder(BYTES, BYTES).build();
      String problem = null;
      io.grpc.Channel target = channel;
      if (token != null) {
        Metadata headers = new Metadata();
        String sent = "Bearer " + token;
        if (fuzzer.nextInt(10) == 0) {
          sent = sent.substring(0, fuzzer.nextInt(sent.length()));
        }
        headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), sent);
        target =
            ClientInterceptors.intercept(
                channel, MetadataUtils.newAttachHeadersInterceptor(headers));
      }
      try {
        ClientCalls.blockingUnaryCall(
            target, raw, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), bytes);
      } catch (StatusRuntimeException e) {
        problem = problem(e);
      }
      if (problem != null) {
        failures.add(
            "seed "
                + seed
                + " #"
                + i
                + " "
                + method.getFullMethodName()
                + " "
                + abbreviate(request.text())
                + " -> "
                + problem);
      }
    }
    return failures;
  }

  /** The request message of {@code method} for a fuzzed request (typed, or with JSON text). */
  private static Message message(
      MethodDescriptor<?, ?> method, RequestFuzzer.Request request, RequestFuzzer fuzzer) {
    Message.Builder builder = GrpcOperations.builder(method.getRequestMarshaller());
    if (builder instanceof InvokeRequest.Builder invoke) {
      return invoke.setOperation(request.operation()).setJson(request.text()).build();
    }
    if (builder instanceof OperationRequest.Builder json) {
      return json.setJson(request.text()).build();
    }
    JsonNode tree = request.json() != null ? request.json() : fuzzer.seed(request.operation());
    try {
      return ProtoJson.fromJson(tree, builder).build();
    } catch (RuntimeException e) {
      // The mutation has no typed form (a number where text goes, say): send the valid request,
      // which the caller may still mutate as bytes.
      return ProtoJson.fromJson(
              fuzzer.seed(request.operation()),
              GrpcOperations.builder(method.getRequestMarshaller()))
          .build();
    }
  }

  /** What is wrong with a refusal, or null. */
  private static String problem(StatusRuntimeException e) {
    Status status = e.getStatus();
    String description = String.valueOf(status.getDescription());
    if (BAD.contains(status.getCode())) {
      return status.getCode() + ": " + abbreviate(description);
    }
    String leak = RequestFuzzer.leak(description);
    if (leak != null) {
      return "leaked '" + leak + "' in " + abbreviate(description);
    }
    com.google.rpc.Status details = StatusProto.fromThrowable(e);
    boolean sgm =
        details != null
            && details.getDetailsList().stream()
                .anyMatch(any -> any.is(ErrorInfo.class) && domain(any).equals(GrpcErrors.DOMAIN));
    if (!sgm) {
      return status.getCode() + " without the SGM error details: " + abbreviate(description);
    }
    return null;
  }

  private static String domain(Any any) {
    try {
      return any.unpack(ErrorInfo.class).getDomain();
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      return "";
    }
  }

  private static String abbreviate(String text) {
    return text.length() > 200 ? text.substring(0, 200) + "..." : text;
  }
}
