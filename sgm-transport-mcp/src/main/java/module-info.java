/**
 * SGM over the Model Context Protocol, so coding agents use it as their memory: every operation as
 * a tool ({@code sgm_store}, {@code sgm_retrieve}, ...), records as resources, over stdio ({@code
 * sgm mcp}) and Streamable HTTP ({@code /mcp}); and clients of the same over both.
 */
module dev.sgm.transport.mcp {
  requires transitive dev.sgm.api;
  // Static: a relay (sgm mcp beside a holder) serves MCP over stdio with no Jetty on its module
  // path; bin/sgm adds Jetty to every other launch where its jar is present.
  requires static org.eclipse.jetty.server;
  requires java.net.http;

  exports dev.sgm.transport.mcp;

  provides dev.sgm.api.spi.TransportProvider with
      dev.sgm.transport.mcp.McpTransportProvider;
  provides dev.sgm.api.spi.ClientProvider with
      dev.sgm.transport.mcp.McpClientProvider;
  provides dev.sgm.api.spi.StdioServerProvider with
      dev.sgm.transport.mcp.McpStdioProvider;
}
