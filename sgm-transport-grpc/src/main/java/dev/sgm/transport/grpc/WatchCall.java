package dev.sgm.transport.grpc;

import dev.sgm.api.Caller;
import dev.sgm.api.ChangeEvent;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import dev.sgm.api.Timestamps;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;

/**
 * {@code Memory.Watch}: one change stream per call, pumped by a virtual thread of its own so that
 * the call's cancellation (the client leaving) closes the stream at once. It sends only while the
 * client's transport is ready: a client that stops reading lets the stream fall behind its bounded
 * buffer (and be caught up from the change log later) instead of filling memory.
 */
final class WatchCall {
  private static final System.Logger LOG = System.getLogger(WatchCall.class.getName());

  private final SgmService service;
  private final ExecutorService executor;
  private final long heartbeatMillis;
  private final Set<ChangeStream> open = ConcurrentHashMap.newKeySet();

  WatchCall(SgmService service, ExecutorService executor, long heartbeatMillis) {
    this.service = service;
    this.executor = executor;
    this.heartbeatMillis = heartbeatMillis;
  }

  /** How many streams are open now. */
  int open() {
    return open.size();
  }

  /** Ends every open stream (at shutdown). */
  void closeAll() {
    for (ChangeStream stream : open) {
      open.remove(stream);
      stream.close();
    }
  }

  void start(WatchRequest request, StreamObserver<WatchEvent> observer) {
    ServerCallStreamObserver<WatchEvent> call = (ServerCallStreamObserver<WatchEvent>) observer;
    ChangeStream stream;
    try {
      Caller caller = Calls.caller(service);
      stream = service.watch(caller, ChangesRequest.fromJson(ProtoJson.toJson(request)));
    } catch (SgmException e) {
      observer.onError(GrpcErrors.toStatus(e));
      return;
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "failed: watch", e);
      observer.onError(
          GrpcErrors.toStatus(
              new SgmException(ErrorCode.INTERNAL, "the server failed; see its log")));
      return;
    }
    open.add(stream);
    Object ready = new Object();
    call.setOnCancelHandler(
        () -> {
          open.remove(stream);
          stream.close();
        });
    call.setOnReadyHandler(
        () -> {
          synchronized (ready) {
            ready.notifyAll();
          }
        });
    executor.execute(() -> pump(stream, call, ready));
  }

  private void pump(ChangeStream stream, ServerCallStreamObserver<WatchEvent> call, Object ready) {
    try {
      call.onNext(WatchEvent.newBuilder().setCursor(stream.cursor()).build());
      while (open.contains(stream) && !call.isCancelled()) {
        synchronized (ready) {
          while (!call.isReady() && !call.isCancelled() && open.contains(stream)) {
            ready.wait(heartbeatMillis);
          }
        }
        ChangeStream.Batch batch = stream.poll(Duration.ofMillis(heartbeatMillis));
        if (!open.contains(stream) || call.isCancelled()) {
          break;
        }
        if (batch.events().isEmpty()) {
          call.onNext(
              WatchEvent.newBuilder()
                  .setCursor(stream.cursor())
                  .setFellBehind(batch.fellBehind())
                  .build());
        }
        boolean first = true;
        for (ChangeEvent event : batch.events()) {
          call.onNext(message(event, first && batch.fellBehind()));
          first = false;
        }
      }
      if (!call.isCancelled()) {
        call.onCompleted();
      }
    } catch (SgmException e) {
      if (!call.isCancelled()) {
        call.onError(GrpcErrors.toStatus(e));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      // The client went away mid-send, or the call was closed under us.
      LOG.log(System.Logger.Level.DEBUG, "a watch stream ended", e);
    } finally {
      open.remove(stream);
      stream.close();
    }
  }

  private static WatchEvent message(ChangeEvent event, boolean fellBehind) {
    WatchEvent.Builder message =
        WatchEvent.newBuilder()
            .setCursor(event.cursor())
            .setKind(event.kind())
            .setId(event.id())
            .setVersion(event.version())
            .setFellBehind(fellBehind);
    for (Map.Entry<String, String> pair : event.scope().pairs().entrySet()) {
      message.addScope(ScopeEntry.newBuilder().setKey(pair.getKey()).setValue(pair.getValue()));
    }
    if (event.type() != null) {
      message.setType(event.type());
    }
    if (event.agent() != null) {
      message.setAgent(event.agent());
    }
    if (event.at() != null) {
      message.setAt(Timestamps.format(event.at()));
    }
    return message.build();
  }
}
