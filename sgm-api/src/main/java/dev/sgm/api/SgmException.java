package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.StreamSupport;

/**
 * The one exception of the SGM contract: an {@link ErrorCode}, a message that names the field or
 * value at fault, and optional field details. Transports turn it into the contract's error object;
 * nothing internal (stack traces, SQL) is ever part of it.
 */
public class SgmException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;
  private final List<FieldError> details;
  private final Duration retryAfter;

  public SgmException(ErrorCode code, String message) {
    this(code, message, List.of(), null);
  }

  public SgmException(ErrorCode code, String message, List<FieldError> details) {
    this(code, message, details, null);
  }

  public SgmException(ErrorCode code, String message, List<FieldError> details, Throwable cause) {
    this(code, message, details, cause, null);
  }

  private SgmException(
      ErrorCode code,
      String message,
      List<FieldError> details,
      Throwable cause,
      Duration retryAfter) {
    super(Objects.requireNonNull(message, "message"), cause);
    this.code = Objects.requireNonNull(code, "code");
    this.details = List.copyOf(details);
    this.retryAfter = retryAfter;
  }

  /**
   * An {@code unavailable} error for a client that is refused for a while (too many failed
   * attempts): it may try again after {@code retryAfter}, which HTTP sends as {@code 429} with
   * {@code Retry-After}.
   */
  public static SgmException throttled(String field, String reason, Duration retryAfter) {
    return new SgmException(
        ErrorCode.UNAVAILABLE,
        field + ": " + reason,
        List.of(new FieldError(field, reason)),
        null,
        Objects.requireNonNull(retryAfter, "retryAfter"));
  }

  /** An {@code invalid_record} error naming the field at fault. */
  public static SgmException invalidRecord(String field, String reason) {
    return new SgmException(
        ErrorCode.INVALID_RECORD, field + ": " + reason, List.of(new FieldError(field, reason)));
  }

  /** An {@code invalid_request} error naming the field at fault. */
  public static SgmException invalidRequest(String field, String reason) {
    return new SgmException(
        ErrorCode.INVALID_REQUEST, field + ": " + reason, List.of(new FieldError(field, reason)));
  }

  /**
   * An {@code unavailable} error: {@code where} cannot be reached, for a reason said in words (a
   * refused connection's exception carries no message of its own).
   */
  public static SgmException unreachable(String where, Exception cause) {
    String reason = cause.getMessage();
    if (reason == null || reason.isBlank()) {
      String kind = cause.getClass().getSimpleName();
      if (cause instanceof java.net.ConnectException) {
        reason = "connection refused: nothing is listening there";
      } else if (kind.contains("Timeout")) {
        reason = "no answer in time";
      } else if (cause instanceof java.net.UnknownHostException) {
        reason = "unknown host";
      } else {
        reason = "the connection failed";
      }
    }
    return new SgmException(
        ErrorCode.UNAVAILABLE, "cannot reach " + where + ": " + reason, List.of(), cause);
  }

  public ErrorCode code() {
    return code;
  }

  public List<FieldError> details() {
    return details;
  }

  /** How long a throttled client should wait before trying again; empty for other errors. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  /**
   * The HTTP status this error is sent with: its code's, except that a throttled client is told
   * {@code 429 Too Many Requests} rather than that the server is unavailable.
   */
  public int httpStatus() {
    return retryAfter != null ? 429 : code.httpStatus();
  }

  /** The {@code Retry-After} value of a throttled client, whole seconds rounded up. */
  public Optional<String> retryAfterSeconds() {
    return retryAfter().map(d -> Long.toString(Math.max(1, (d.toMillis() + 999) / 1000)));
  }

  /** This error with every detail's field prefixed, e.g. {@code records[3].} for a batch member. */
  public SgmException withFieldPrefix(String prefix) {
    List<FieldError> prefixed =
        details.stream().map(d -> new FieldError(prefix + d.field(), d.reason())).toList();
    return new SgmException(code, prefix + getMessage(), prefixed, getCause(), retryAfter);
  }

  /**
   * This error with the field {@code from} (and what lies under it) called {@code to}, in its
   * details and its message: for a command whose option carries an operation's field.
   */
  public SgmException withFieldRenamed(String from, String to) {
    List<FieldError> renamed =
        details.stream()
            .map(
                d ->
                    d.field().equals(from) || d.field().startsWith(from + "[")
                        ? new FieldError(to + d.field().substring(from.length()), d.reason())
                        : d)
            .toList();
    String message = getMessage();
    if (message.startsWith(from + ":") || message.startsWith(from + "[")) {
      message = to + message.substring(from.length());
    }
    return new SgmException(code, message, renamed, getCause(), retryAfter);
  }

  /** The contract's error object: {@code {"error": {"code", "message", "details"?}}}. */
  public ObjectNode toJson() {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    ObjectNode error = root.putObject("error");
    error.put("code", code.wireName());
    error.put("message", getMessage());
    if (!details.isEmpty()) {
      ArrayNode array = error.putArray("details");
      for (FieldError d : details) {
        array.addObject().put("field", d.field()).put("reason", d.reason());
      }
    }
    return root;
  }

  /** Reads an error object written by {@link #toJson()}; used by clients of every transport. */
  public static SgmException fromJson(JsonNode json) {
    JsonNode error = json.path("error");
    ErrorCode code = ErrorCode.fromWireName(error.path("code").asText("internal"));
    String message = error.path("message").asText("(no message)");
    List<FieldError> details =
        error.path("details").isArray()
            ? StreamSupport.stream(error.path("details").spliterator(), false)
                .map(d -> new FieldError(d.path("field").asText(""), d.path("reason").asText("")))
                .toList()
            : List.of();
    return new SgmException(code, message, details);
  }
}
