package dev.sgm.transport.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Message;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import io.grpc.stub.StreamObserver;
import java.util.function.Supplier;

/**
 * Runs one RPC as one SGM operation: the request message becomes the operation's JSON, the engine
 * decides, and the JSON result (or error) becomes the response message (or status). Nothing here
 * decides anything of SGM's.
 */
final class Calls {
  private static final System.Logger LOG = System.getLogger(Calls.class.getName());
  private static final Caller CALLER = Caller.anonymous("grpc");

  private final SgmService service;

  Calls(SgmService service) {
    this.service = service;
  }

  @SuppressWarnings("unchecked")
  <R extends Message> void unary(
      String operation, Message request, Message.Builder response, StreamObserver<R> observer) {
    answer(
        operation,
        () -> {
          JsonNode result = service.invoke(CALLER, operation, ProtoJson.toJson(request));
          return (R) ProtoJson.fromJson(result, response).build();
        },
        observer);
  }

  /** A profile operation whose request and response travel as JSON text. */
  void json(
      String operation, OperationRequest request, StreamObserver<OperationResponse> observer) {
    answer(
        operation,
        () -> {
          JsonNode body =
              request.getJson().isEmpty() ? Json.object() : Json.parse(request.getJson());
          JsonNode result = service.invoke(CALLER, operation, body);
          return OperationResponse.newBuilder().setJson(Json.write(result)).build();
        },
        observer);
  }

  /** Sends what {@code call} answers, or its failure as a status without server internals. */
  private static <R> void answer(String operation, Supplier<R> call, StreamObserver<R> observer) {
    try {
      observer.onNext(call.get());
      observer.onCompleted();
    } catch (SgmException e) {
      observer.onError(GrpcErrors.toStatus(e));
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "failed: " + operation, e);
      observer.onError(
          GrpcErrors.toStatus(
              new SgmException(ErrorCode.INTERNAL, "the server failed; see its log")));
    }
  }
}
