package dev.sgm.app;

import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Transport;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code sgm serve}: every transport present and enabled, until Ctrl-C or SIGTERM. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description =
        "Serve every transport present (HTTP on http://127.0.0.1:7410 by default) until interrupted.")
final class Serve implements Callable<Integer> {
  /** Returned after serving until shutdown: the JVM is exiting already, so main must not exit. */
  static final int SERVED = -1;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @Mixin Connection connection;

  @Override
  public Integer call() throws Exception {
    if (connection.remote() != null) {
      throw SgmException.invalidRequest("--remote", "serve runs a server; it cannot use --remote");
    }
    long started = System.nanoTime();
    SharedDirectory sgm = SharedDirectory.open(connection.config(), "cli");
    List<Transport> transports;
    try {
      transports = sgm.startTransports();
    } catch (Exception e) {
      sgm.close();
      throw e;
    }
    if (transports.stream().allMatch(t -> t.endpoints().isEmpty())) {
      sgm.close();
      spec.commandLine()
          .getErr()
          .println(
              "sgm: no network transport is present and enabled, so there is nothing to serve"
                  + " (put sgm-transport-http in plugins/)");
      return ExitCodes.UNSUPPORTED;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    try {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    sgm.close();
                    stopped.countDown();
                  },
                  "sgm-shutdown"));
    } catch (IllegalStateException shuttingDown) {
      // Stopped (Ctrl-C, SIGTERM) while starting: stopping is what was asked, not an error.
      sgm.close();
      return SERVED;
    }
    PrintWriter out = spec.commandLine().getOut();
    out.println("SGM on " + sgm.storageDescription());
    out.println("capabilities: " + String.join(", ", sgm.discovery().capabilities()));
    for (Transport transport : transports) {
      transport.endpoints().forEach(endpoint -> out.println("serving " + endpoint));
    }
    out.printf("ready in %d ms; Ctrl-C stops%n", (System.nanoTime() - started) / 1_000_000);
    out.flush();
    stopped.await();
    return SERVED;
  }
}
