/**
 * The {@code sgm} command: serves the transports present, runs every operation on the embedded
 * store or on a server ({@code --remote}), and exports and imports memory as JSON Lines. As a
 * transport plugin it advertises {@code cli}.
 */
module dev.sgm.transport.cli {
  requires transitive dev.sgm.api;
  requires dev.sgm.core;
  requires static dev.sgm.transport.http;
  requires static dev.sgm.transport.grpc;
  requires static dev.sgm.transport.mcp;
  requires info.picocli;
  requires dev.sgm.tck;
  requires org.junit.platform.launcher;
  requires org.junit.platform.reporting;
  requires java.logging;

  exports dev.sgm.transport.cli;

  opens dev.sgm.transport.cli to
      info.picocli,
      org.junit.platform.commons;

  provides dev.sgm.api.spi.TransportProvider with
      dev.sgm.transport.cli.CliTransportProvider;
}
