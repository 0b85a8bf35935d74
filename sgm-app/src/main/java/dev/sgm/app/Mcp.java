package dev.sgm.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.StdioServerProvider;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sgm mcp}: an MCP server on standard input and output, for a coding agent to launch. Its
 * tools work in {@code --project} (and {@code --scope} pairs) as {@code --agent} unless a call
 * names another scope; on the embedded store, or on a server with {@code --remote}.
 */
@Command(
    name = "mcp",
    mixinStandardHelpOptions = true,
    description =
        "Serve MCP over stdio for a coding agent: sgm mcp --project myproject --agent claude-code")
final class Mcp implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @Mixin Connection connection;

  @Option(
      names = "--project",
      description =
          "The default project scope of the agent's records (default: SGM_PROJECT, else the git"
              + " repository's name where it runs, else the directory's).")
  String project;

  @Option(
      names = "--scope",
      paramLabel = "KEY=VALUE",
      description = "More default scope pairs, e.g. --scope session=s1.")
  Map<String, String> scope = new LinkedHashMap<>();

  @Option(names = "--agent", description = "The agent recorded as the writer (default: mcp-agent).")
  String agent;

  @Override
  public Integer call() throws Exception {
    // With no --project, the project is where the agent runs, so that one MCP entry in the user's
    // settings serves every repository.
    ObjectNode defaultScope = Json.object();
    defaultScope.put("project", project != null ? project : WorkingProject.here().name());
    scope.forEach(defaultScope::put);
    StdioServerProvider mcp =
        StdioServerProvider.named("mcp")
            .orElseThrow(
                () ->
                    new SgmException(
                        ErrorCode.UNSUPPORTED_CAPABILITY,
                        "sgm mcp needs sgm-transport-mcp, which is not on the module path"));
    try (Backend backend = connection.open()) {
      mcp.serve(
          backend,
          backend.describeOperations(),
          defaultScope,
          agent,
          version(),
          System.in,
          System.out);
    }
    return ExitCodes.OK;
  }

  private static String version() {
    var descriptor = Mcp.class.getModule().getDescriptor();
    return descriptor == null ? "development" : descriptor.rawVersion().orElse("development");
  }
}
