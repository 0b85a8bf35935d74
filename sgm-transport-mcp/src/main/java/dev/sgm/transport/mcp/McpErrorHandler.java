package dev.sgm.transport.mcp;

import dev.sgm.api.Json;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * What Jetty itself refuses before a request reaches the MCP endpoint (a header too large, a bad
 * request line) is answered with a JSON-RPC error, not an HTML page: an MCP client reads one shape
 * of answer whatever refused it. The message is the status's reason only.
 */
final class McpErrorHandler extends ErrorHandler {
  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String reason = HttpStatus.getMessage(response.getStatus());
    byte[] body =
        Json.writeBytes(
            McpProtocol.error(
                null, McpProtocol.INVALID_REQUEST, "the request was refused: " + reason));
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(true, ByteBuffer.wrap(body), callback);
    return true;
  }
}
