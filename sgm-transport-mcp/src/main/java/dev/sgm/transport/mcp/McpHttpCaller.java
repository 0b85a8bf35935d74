package dev.sgm.transport.mcp;

import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import java.util.Objects;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

/**
 * The caller of a Streamable HTTP request, with what authenticated it: a long-lived stream checks
 * it again while it lasts.
 */
record McpHttpCaller(Caller caller, String authorization, String address) {
  /** The caller {@code request} authenticates as; refused with the service's error. */
  static McpHttpCaller authenticate(SgmService service, Request request) {
    String authorization = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    String address = Request.getRemoteAddr(request);
    return new McpHttpCaller(
        service.authenticate(McpHttpTransport.ORIGIN, authorization, address),
        authorization,
        address);
  }

  /** Null while the token still holds for the same principal; else why it no longer does. */
  SgmException stillAuthenticated(SgmService service) {
    try {
      Caller now = service.authenticate(McpHttpTransport.ORIGIN, authorization, address);
      return Objects.equals(now.principal(), caller.principal())
          ? null
          : new SgmException(ErrorCode.UNAUTHENTICATED, "the token's principal changed");
    } catch (SgmException e) {
      return e;
    }
  }
}
