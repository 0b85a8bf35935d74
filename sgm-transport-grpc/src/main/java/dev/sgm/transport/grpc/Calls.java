package dev.sgm.transport.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Message;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import io.grpc.MethodDescriptor;
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

  /**
   * Runs the RPC {@code method}: {@code operation} as its option names it, or, for {@code Invoke}
   * (no option), the operation the request names.
   */
  @SuppressWarnings("unchecked")
  <R> void run(
      MethodDescriptor<?, R> method,
      String operation,
      Message request,
      StreamObserver<R> observer) {
    if (request instanceof InvokeRequest invoke) {
      answer(
          invoke.getOperation(),
          () -> (R) jsonCall(invoke.getOperation(), invoke.getJson()),
          observer);
    } else if (request instanceof OperationRequest json) {
      answer(operation, () -> (R) jsonCall(operation, json.getJson()), observer);
    } else {
      answer(
          operation,
          () -> {
            JsonNode result = service.invoke(CALLER, operation, ProtoJson.toJson(request));
            return (R)
                ProtoJson.fromJson(result, GrpcOperations.builder(method.getResponseMarshaller()))
                    .build();
          },
          observer);
    }
  }

  /** An operation whose request and response travel as JSON text. */
  private OperationResponse jsonCall(String operation, String json) {
    JsonNode body = json.isEmpty() ? Json.object() : Json.parse(json);
    JsonNode result = service.invoke(CALLER, operation, body);
    return OperationResponse.newBuilder().setJson(Json.write(result)).build();
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
