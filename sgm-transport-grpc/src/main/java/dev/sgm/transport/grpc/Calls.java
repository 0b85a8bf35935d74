package dev.sgm.transport.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Message;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.FieldError;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.function.Supplier;

/**
 * Runs one RPC as one SGM operation: the request message becomes the operation's JSON, the engine
 * decides, and the JSON result (or error) becomes the response message (or status). Nothing here
 * decides anything of SGM's.
 */
final class Calls {
  private static final System.Logger LOG = System.getLogger(Calls.class.getName());
  private static final String ORIGIN = "grpc";

  /**
   * The request's {@code authorization} metadata, which {@link #INTERCEPTOR} puts in the context.
   */
  private static final Context.Key<String> AUTHORIZATION = Context.key("sgm-authorization");

  /** The address the call came from, which {@link #INTERCEPTOR} puts in the context. */
  private static final Context.Key<String> REMOTE_ADDRESS = Context.key("sgm-remote-address");

  private static final Metadata.Key<String> AUTHORIZATION_HEADER =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  /**
   * Carries each call's {@code authorization} metadata and remote address to the handler that
   * authenticates it.
   */
  static final ServerInterceptor INTERCEPTOR =
      new ServerInterceptor() {
        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
          Context context =
              Context.current()
                  .withValue(AUTHORIZATION, headers.get(AUTHORIZATION_HEADER))
                  .withValue(
                      REMOTE_ADDRESS,
                      address(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR)));
          return Contexts.interceptCall(context, call, headers, next);
        }
      };

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
      Incoming incoming,
      StreamObserver<R> observer) {
    Message request = incoming.message();
    if (request == null) {
      String reason = "the request bytes are not a valid " + incoming.type() + " message";
      observer.onError(
          GrpcErrors.toStatus(
              new SgmException(
                  ErrorCode.INVALID_REQUEST,
                  "request: " + reason,
                  List.of(new FieldError("request", reason)))));
      return;
    }
    if (request instanceof InvokeRequest invoke) {
      answer(
          invoke.getOperation(),
          () -> (R) jsonCall(caller(), invoke.getOperation(), invoke.getJson()),
          observer);
    } else if (request instanceof OperationRequest json) {
      answer(operation, () -> (R) jsonCall(caller(), operation, json.getJson()), observer);
    } else {
      answer(
          operation,
          () -> {
            JsonNode result = service.invoke(caller(), operation, ProtoJson.toJson(request));
            return (R)
                ProtoJson.fromJson(result, GrpcOperations.builder(method.getResponseMarshaller()))
                    .build();
          },
          observer);
    }
  }

  /** An operation whose request and response travel as JSON text. */
  private OperationResponse jsonCall(Caller caller, String operation, String json) {
    JsonNode body = json.isEmpty() ? Json.object() : Json.parse(json);
    JsonNode result = service.invoke(caller, operation, body);
    return OperationResponse.newBuilder().setJson(Json.write(result)).build();
  }

  /** The caller of the call in progress, as its token names it (the owner while auth is off). */
  static Caller caller(SgmService service) {
    return service.authenticate(ORIGIN, AUTHORIZATION.get(), REMOTE_ADDRESS.get());
  }

  private Caller caller() {
    return caller(service);
  }

  private static String address(java.net.SocketAddress remote) {
    return remote instanceof java.net.InetSocketAddress inet && inet.getAddress() != null
        ? inet.getAddress().getHostAddress()
        : null;
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
