/**
 * The {@code sgm} command: serves the transports present, runs every operation on the embedded
 * store or on a server ({@code --remote}), and exports and imports memory as JSON Lines. As a
 * transport plugin it advertises {@code cli}.
 */
module dev.sgm.transport.cli {
  requires transitive dev.sgm.api;
  requires dev.sgm.core;
  requires info.picocli;
  requires java.logging;

  opens dev.sgm.transport.cli to
      info.picocli;

  provides dev.sgm.api.spi.TransportProvider with
      dev.sgm.transport.cli.CliTransportProvider;
}
