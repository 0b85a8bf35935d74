package dev.sgm.transport.grpc;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.FieldError;
import dev.sgm.api.SgmException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.ArrayList;
import java.util.List;

/**
 * The contract's errors as gRPC statuses, both ways: the status code of the error table, an
 * ErrorInfo whose reason is the SGM code (domain {@code sgm}), and a BadRequest naming the fields
 * at fault.
 */
final class GrpcErrors {
  static final String DOMAIN = "sgm";

  private GrpcErrors() {}

  /**
   * The longest message and field description sent: a status travels in the trailers, which a
   * client caps (8 KiB by default), and a message may quote a long input value back.
   */
  static final int MAX_TEXT = 300;

  static StatusRuntimeException toStatus(SgmException error) {
    com.google.rpc.Status.Builder status =
        com.google.rpc.Status.newBuilder()
            .setCode(Status.Code.valueOf(error.code().grpcCode()).value())
            .setMessage(cut(error.getMessage()))
            .addDetails(
                Any.pack(
                    ErrorInfo.newBuilder()
                        .setReason(error.code().wireName())
                        .setDomain(DOMAIN)
                        .build()));
    if (!error.details().isEmpty()) {
      BadRequest.Builder bad = BadRequest.newBuilder();
      for (FieldError detail : error.details().subList(0, Math.min(5, error.details().size()))) {
        bad.addFieldViolations(
            BadRequest.FieldViolation.newBuilder()
                .setField(cut(detail.field()))
                .setDescription(cut(detail.reason())));
      }
      status.addDetails(Any.pack(bad.build()));
    }
    return StatusProto.toStatusRuntimeException(status.build());
  }

  private static String cut(String text) {
    if (text == null || text.length() <= MAX_TEXT) {
      return text;
    }
    return text.substring(0, MAX_TEXT) + "...";
  }

  /** The SGM error a status carries; statuses from gRPC itself map by their code. */
  static SgmException fromStatus(StatusRuntimeException exception) {
    com.google.rpc.Status status = StatusProto.fromThrowable(exception);
    ErrorCode code = null;
    List<FieldError> details = new ArrayList<>();
    if (status != null) {
      for (Any any : status.getDetailsList()) {
        try {
          if (any.is(ErrorInfo.class)) {
            ErrorInfo info = any.unpack(ErrorInfo.class);
            if (DOMAIN.equals(info.getDomain())) {
              code = ErrorCode.fromWireName(info.getReason());
            }
          } else if (any.is(BadRequest.class)) {
            for (BadRequest.FieldViolation v :
                any.unpack(BadRequest.class).getFieldViolationsList()) {
              details.add(new FieldError(v.getField(), v.getDescription()));
            }
          }
        } catch (InvalidProtocolBufferException e) {
          // A detail we cannot read; the status code still says enough.
        }
      }
    }
    Status.Code grpc = exception.getStatus().getCode();
    if (code == null) {
      code =
          switch (grpc) {
            case INVALID_ARGUMENT -> ErrorCode.INVALID_REQUEST;
            case NOT_FOUND -> ErrorCode.NOT_FOUND;
            case ABORTED, ALREADY_EXISTS -> ErrorCode.CONFLICT;
            case RESOURCE_EXHAUSTED -> ErrorCode.TOO_LARGE;
            case UNAUTHENTICATED -> ErrorCode.UNAUTHENTICATED;
            case PERMISSION_DENIED -> ErrorCode.FORBIDDEN;
            case UNIMPLEMENTED -> ErrorCode.UNSUPPORTED_CAPABILITY;
            case FAILED_PRECONDITION -> ErrorCode.UNSUPPORTED_VERSION;
            case OUT_OF_RANGE -> ErrorCode.CURSOR_EXPIRED;
            case UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED -> ErrorCode.UNAVAILABLE;
            default -> ErrorCode.INTERNAL;
          };
    }
    String message = exception.getStatus().getDescription();
    return new SgmException(code, message == null ? grpc.name() : message, details);
  }
}
