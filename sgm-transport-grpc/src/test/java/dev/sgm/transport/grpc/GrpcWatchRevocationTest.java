package dev.sgm.transport.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Grants;
import dev.sgm.api.Sensitivity;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code Memory.Watch} opened with a token ends with {@code UNAUTHENTICATED} once the token is
 * revoked, without a write to wake it.
 */
class GrpcWatchRevocationTest {
  @Test
  void aWatchEndsUnauthenticatedOnceItsTokenIsRevoked() throws Exception {
    try (GrpcServers.Running server = GrpcServers.start("auth.enabled", "true")) {
      var created =
          server
              .runtime()
              .tokens()
              .create(
                  "watcher",
                  List.of(Grants.Grant.parse("project=watched:read")),
                  Set.of("*"),
                  Sensitivity.SECRET,
                  null);
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", server.transport().port())
              .usePlaintext()
              .build();
      try {
        Metadata headers = new Metadata();
        headers.put(
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
            "Bearer " + created.token());
        BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        MemoryGrpc.newStub(channel)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
            .watch(
                WatchRequest.newBuilder()
                    .addScope(ScopeEntry.newBuilder().setKey("project").setValue("watched"))
                    .build(),
                new StreamObserver<>() {
                  @Override
                  public void onNext(WatchEvent value) {
                    messages.add(value);
                  }

                  @Override
                  public void onError(Throwable t) {
                    messages.add(t);
                  }

                  @Override
                  public void onCompleted() {
                    messages.add("completed");
                  }
                });
        assertTrue(messages.poll(10, TimeUnit.SECONDS) instanceof WatchEvent, "the watch opened");
        server.runtime().tokens().revoke(created.id());
        Object end;
        do {
          end = messages.poll(10, TimeUnit.SECONDS);
          assertNotNull(end, "the watch ended within 10 s of the revocation");
        } while (end instanceof WatchEvent);
        assertTrue(end instanceof Throwable, String.valueOf(end));
        assertEquals(Status.Code.UNAUTHENTICATED, Status.fromThrowable((Throwable) end).getCode());
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }
}
