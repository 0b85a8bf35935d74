package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sgm token create|list|revoke}: the access tokens, through the {@code tokens.*} operations,
 * which only the owner may call: on a data directory (the local owner; through the process that
 * holds it, if one does, so a running server need not stop), on the database of {@code -D
 * storage=postgres}, or on a running server with {@code --remote} and an owner token. A token is
 * printed once, at creation; the store keeps only its hash.
 */
@Command(
    name = "token",
    mixinStandardHelpOptions = true,
    description =
        "Create, list and revoke access tokens: on a data directory (while a server holds it or"
            + " not), the database of -D storage=postgres, or a server with --remote and an owner"
            + " token.",
    subcommands = {Token.Create.class, Token.ListTokens.class, Token.Revoke.class})
final class Token implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return ExitCodes.OK;
  }

  /** Runs {@code operation} where the command's options say the data is. */
  private static JsonNode run(Connection connection, String operation, ObjectNode request) {
    try (Backend backend = connection.open()) {
      return backend.call(operation, request);
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a token.")
  static final class Create implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Connection connection;

    @Option(names = "--principal", required = true, description = "Who the token stands for.")
    String principal;

    @Option(
        names = "--grant",
        required = true,
        paramLabel = "SCOPE:ACCESS",
        description = "A scope and read or read_write, e.g. project=alpha:read_write; repeatable.")
    List<String> grants = new ArrayList<>();

    @Option(
        names = "--agent",
        paramLabel = "NAME",
        description = "An agent the token may write as ('*' for any); default: the principal.")
    List<String> agents = new ArrayList<>();

    @Option(
        names = "--clearance",
        defaultValue = "secret",
        description = "public, internal, confidential or secret (default).")
    String clearance;

    @Option(names = "--expires", paramLabel = "DURATION", description = "e.g. 30d, 12h, 90m.")
    String expires;

    @Override
    public Integer call() {
      ObjectNode request = Json.object();
      request.put("principal", principal);
      grants.forEach(request.putArray("grants")::add);
      if (!agents.isEmpty()) {
        agents.forEach(request.putArray("agents")::add);
      }
      request.put("clearance", clearance);
      if (expires != null) {
        request.put("expires_in", expires);
      }
      JsonNode created;
      try {
        created = run(connection, Operations.TOKENS_CREATE, request);
      } catch (dev.sgm.api.SgmException e) {
        // The options, not the operation's fields, are what the user typed.
        throw e.withFieldRenamed("expires_in", "--expires").withFieldRenamed("grants", "--grant");
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println(created.path("token").asText());
      out.flush();
      PrintWriter err = spec.commandLine().getErr();
      err.println(
          "token "
              + created.path("id").asText()
              + " for "
              + principal
              + "; shown once: keep it now (the store keeps only its hash)");
      err.flush();
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List tokens (no secrets).")
  static final class ListTokens implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Connection connection;

    @Override
    public Integer call() {
      JsonIo.print(spec, run(connection, Operations.TOKENS_LIST, Json.object()).path("tokens"));
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "revoke",
      mixinStandardHelpOptions = true,
      description = "Revoke a token by its id; it stops working within 2 s on every node.")
  static final class Revoke implements Callable<Integer> {
    private static final Pattern WHOLE_TOKEN = Pattern.compile("sgm_([0-9a-f]+)_.+");

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Connection connection;

    @Parameters(
        paramLabel = "ID",
        description = "The token's id, as token list shows it, or the token itself.")
    String id;

    @Override
    public Integer call() {
      // A whole token (sgm_<id>_<secret>) names its id: whoever holds it may revoke it by pasting
      // it.
      Matcher whole = WHOLE_TOKEN.matcher(id);
      if (whole.matches()) {
        id = whole.group(1);
      }
      run(connection, Operations.TOKENS_REVOKE, Json.object().put("id", id));
      spec.commandLine().getErr().println("token " + id + " revoked");
      return ExitCodes.OK;
    }
  }
}
