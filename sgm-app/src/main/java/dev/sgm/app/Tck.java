package dev.sgm.app;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.Operations;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.ConformanceKit;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sgm tck URL}: the conformance kit against any SGM server, over whichever transport the URL
 * names. The kit itself (sgm-tck, with the JUnit launcher it brings) is a plugin: without it on the
 * module path this command says so.
 */
@Command(
    name = "tck",
    mixinStandardHelpOptions = true,
    description = {
      "Run the conformance kit against the SGM server at URL and report each rule and a verdict"
          + " per suite.",
      "Exit code 0: conforming (the core cases C1-C12 and every advertised profile"
          + " passed; this project's further rules are reported but do not change it);"
          + " 1: a seed core case failed; 9: the core cases passed, an advertised profile failed."
    })
final class Tck implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "URL",
      description =
          "The server, e.g. http://127.0.0.1:7410, grpc://127.0.0.1:7411 or"
              + " mcp+http://127.0.0.1:7412/mcp.")
  String url;

  @Option(
      names = "--junit",
      paramLabel = "DIR",
      description = "Also write JUnit XML reports to DIR.")
  Path junit;

  @Override
  public Integer call() {
    ConformanceKit kit =
        ConformanceKit.find()
            .orElseThrow(
                () ->
                    new SgmException(
                        ErrorCode.UNSUPPORTED_CAPABILITY,
                        "sgm tck needs the conformance kit (sgm-tck and the JUnit Platform jars) in"
                            + " plugins/"));
    try (Backend backend = Backend.remote(url)) {
      try {
        backend.call(Operations.DISCOVER, dev.sgm.api.Json.object());
      } catch (SgmException e) {
        throw new SgmException(
            ErrorCode.UNAVAILABLE, url + " does not answer as an SGM server: " + e.getMessage());
      }
      PrintWriter out = spec.commandLine().getOut();
      ConformanceKit.Verdict verdict = kit.run(backend, junit, out);
      if (junit != null) {
        out.println("JUnit XML reports in " + junit);
      }
      out.flush();
      return switch (verdict) {
        case CONFORMING, FURTHER_RULES_FAILED -> ExitCodes.OK;
        case PROFILE_FAILED -> ExitCodes.PROFILE_FAILED;
        case CORE_FAILED -> ExitCodes.FAILED;
      };
    }
  }
}
