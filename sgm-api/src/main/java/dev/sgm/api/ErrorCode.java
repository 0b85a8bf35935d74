package dev.sgm.api;

import java.util.Locale;

/**
 * The error codes of the SGM contract, with the HTTP status and gRPC status code each one maps to.
 * Every transport translates through this one table.
 */
public enum ErrorCode {
  INVALID_RECORD(400, "INVALID_ARGUMENT"),
  INVALID_REQUEST(400, "INVALID_ARGUMENT"),
  NOT_FOUND(404, "NOT_FOUND"),
  CONFLICT(409, "ABORTED"),
  TOO_LARGE(413, "RESOURCE_EXHAUSTED"),
  UNAUTHENTICATED(401, "UNAUTHENTICATED"),
  FORBIDDEN(403, "PERMISSION_DENIED"),
  UNSUPPORTED_CAPABILITY(501, "UNIMPLEMENTED"),
  UNSUPPORTED_VERSION(400, "FAILED_PRECONDITION"),
  CURSOR_EXPIRED(410, "OUT_OF_RANGE"),
  UNAVAILABLE(503, "UNAVAILABLE"),
  INTERNAL(500, "INTERNAL");

  private final int httpStatus;
  private final String grpcCode;

  ErrorCode(int httpStatus, String grpcCode) {
    this.httpStatus = httpStatus;
    this.grpcCode = grpcCode;
  }

  /** The wire name, e.g. {@code invalid_record}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The HTTP status this code is sent with. */
  public int httpStatus() {
    return httpStatus;
  }

  /** The name of the gRPC status code ({@code io.grpc.Status.Code}) this code is sent with. */
  public String grpcCode() {
    return grpcCode;
  }

  /** The code with this wire name; unknown names map to {@link #INTERNAL}. */
  public static ErrorCode fromWireName(String wireName) {
    for (ErrorCode code : values()) {
      if (code.wireName().equals(wireName)) {
        return code;
      }
    }
    return INTERNAL;
  }
}
