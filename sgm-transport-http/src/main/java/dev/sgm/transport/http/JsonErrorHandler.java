package dev.sgm.transport.http;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * What Jetty itself refuses before a request reaches SGM (an ambiguous path, a bad header) is
 * answered with the contract's error object too, not an HTML page: a client reads one shape of
 * error whatever refused it. The message is the status's reason only, never an exception's text.
 */
final class JsonErrorHandler extends ErrorHandler {
  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = response.getStatus();
    ErrorCode code =
        switch (status) {
          case 404 -> ErrorCode.NOT_FOUND;
          case 413, 431 -> ErrorCode.TOO_LARGE;
          case 503 -> ErrorCode.UNAVAILABLE;
          default -> status >= 500 ? ErrorCode.INTERNAL : ErrorCode.INVALID_REQUEST;
        };
    String reason = HttpStatus.getMessage(status);
    byte[] body =
        Json.writeBytes(new SgmException(code, "the request was refused: " + reason).toJson());
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(true, ByteBuffer.wrap(body), callback);
    return true;
  }
}
