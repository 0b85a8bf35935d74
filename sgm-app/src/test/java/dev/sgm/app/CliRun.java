package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * A command line run in this JVM, as the tests run it: its exit code and what it printed to
 * standard output and standard error, trimmed.
 */
record CliRun(int code, String out, String err) {
  /** Standard output as JSON. */
  JsonNode json() {
    return Json.parse(out);
  }

  /** {@code sgm args...} with the built-in commands, run as the launcher runs them. */
  static CliRun sgm(String... args) {
    CommandLine commandLine = Sgm.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    int code = Sgm.execute(commandLine, args);
    return new CliRun(code, out.toString().trim(), err.toString().trim());
  }
}
