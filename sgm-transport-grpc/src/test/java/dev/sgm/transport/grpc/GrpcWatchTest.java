package dev.sgm.transport.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Json;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code Memory.Watch} from a Java client: events as they commit, resuming after a cursor, and
 * 1,000 clients that open a watch and cancel it freeing their streams and threads.
 */
class GrpcWatchTest {
  private static GrpcServers.Running server;
  private static ManagedChannel channel;

  @BeforeAll
  static void start() throws Exception {
    server = GrpcServers.start("watch.heartbeat-ms", "200");
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.transport().port())
            .usePlaintext()
            .build();
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }

  /** A watch's messages as they come, and a way to cancel it. */
  private static final class Watching implements ClientResponseObserver<WatchRequest, WatchEvent> {
    final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
    ClientCallStreamObserver<WatchRequest> call;

    @Override
    public void beforeStart(ClientCallStreamObserver<WatchRequest> call) {
      this.call = call;
    }

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

    WatchEvent next() throws InterruptedException {
      Object message = messages.poll(10, TimeUnit.SECONDS);
      assertNotNull(message, "a message within 10 s");
      if (message instanceof WatchEvent event) {
        return event;
      }
      throw new AssertionError("the watch ended: " + message);
    }

    List<WatchEvent> events(int count) throws InterruptedException {
      List<WatchEvent> events = new ArrayList<>();
      while (events.size() < count) {
        WatchEvent event = next();
        if (!event.getKind().isEmpty()) {
          events.add(event);
        }
      }
      return events;
    }
  }

  private static Watching watch(String project, String since) {
    WatchRequest.Builder request =
        WatchRequest.newBuilder()
            .addScope(ScopeEntry.newBuilder().setKey("project").setValue(project));
    if (since != null) {
      request.setSince(since);
    }
    Watching watching = new Watching();
    MemoryGrpc.newStub(channel).watch(request.build(), watching);
    return watching;
  }

  private static void store(String project, String id) {
    server
        .client()
        .call(
            "store",
            Json.parse(
                ("{'record': {'id': '"
                        + id
                        + "', 'type': 'note', 'scope': {'project': '"
                        + project
                        + "'}, 'provenance': {'agent': 'g'}}}")
                    .replace('\'', '"')));
  }

  @Test
  void eventsComeAsTheyCommitAndResumeAfterACursor() throws Exception {
    Watching live = watch("grpc-watch", null);
    WatchEvent start = live.next();
    assertTrue(start.getKind().isEmpty() && !start.getCursor().isEmpty(), start::toString);
    store("grpc-watch", "g1");
    store("grpc-watch-other", "elsewhere");
    store("grpc-watch", "g2");
    List<WatchEvent> events = live.events(2);
    live.call.cancel("done", null);
    assertEquals(List.of("g1", "g2"), events.stream().map(WatchEvent::getId).toList());
    assertEquals("stored", events.get(0).getKind());
    assertEquals("g", events.get(0).getAgent());
    Watching resumed = watch("grpc-watch", events.get(0).getCursor());
    assertEquals("g2", resumed.events(1).get(0).getId());
    resumed.call.cancel("done", null);
  }

  @Test
  void aThousandCancelledWatchesFreeTheirStreamsAndThreads() throws Exception {
    cycles(20);
    awaitNoWatches();
    int threadsBefore = Thread.getAllStackTraces().size();
    long started = System.nanoTime();
    cycles(1000);
    long millis = (System.nanoTime() - started) / 1_000_000;
    awaitNoWatches();
    int threadsAfter = Thread.getAllStackTraces().size();
    assertTrue(
        threadsAfter <= threadsBefore + 4,
        "platform threads " + threadsBefore + " before 1000 cycles, " + threadsAfter + " after");
    System.out.println("1000 gRPC watch open/cancel cycles: " + millis + " ms");
  }

  private static void cycles(int times) throws InterruptedException {
    for (int i = 0; i < times; i++) {
      Watching watching = watch("grpc-cycles", null);
      watching.next();
      watching.call.cancel("leaving", null);
    }
  }

  private static void awaitNoWatches() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.transport().openWatches() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(0, server.transport().openWatches(), "every cancelled watch is freed");
  }
}
