package dev.sgm.transport.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmException;
import dev.sgm.core.AccessTokens;
import dev.sgm.core.SgmRuntime;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
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
 * {@code sgm token create|list|revoke}: the access tokens of a data directory, managed where the
 * data is (the operator is the local owner). A token is printed once, at creation; the store keeps
 * only its hash.
 */
@Command(
    name = "token",
    mixinStandardHelpOptions = true,
    description =
        "Create, list and revoke access tokens where the data is: a data directory, or the"
            + " database of -D storage=postgres (shared by every node).",
    subcommands = {Token.Create.class, Token.ListTokens.class, Token.Revoke.class})
final class Token implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return ExitCodes.OK;
  }

  private static SgmRuntime open(Connection connection) {
    if (connection.remote() != null) {
      throw SgmException.invalidRequest(
          "--remote", "tokens are managed where the data is; run this on the data directory");
    }
    return SgmRuntime.open(connection.config());
  }

  @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a token.")
  static final class Create implements Callable<Integer> {
    private static final Pattern DURATION = Pattern.compile("(\\d{1,6})([dhm])");

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
      List<Grants.Grant> parsed = grants.stream().map(Grants.Grant::parse).toList();
      Sensitivity level = Sensitivity.fromWireName(clearance, "--clearance");
      Duration lifetime = expires == null ? null : duration(expires);
      try (SgmRuntime sgm = open(connection)) {
        AccessTokens.Created created =
            sgm.tokens().create(principal, parsed, new LinkedHashSet<>(agents), level, lifetime);
        PrintWriter out = spec.commandLine().getOut();
        out.println(created.token());
        out.flush();
        PrintWriter err = spec.commandLine().getErr();
        err.println(
            "token "
                + created.id()
                + " for "
                + principal
                + "; shown once: keep it now (the store keeps only its hash)");
        err.flush();
      }
      return ExitCodes.OK;
    }

    private static Duration duration(String text) {
      Matcher m = DURATION.matcher(text);
      if (!m.matches()) {
        throw SgmException.invalidRequest(
            "--expires", "'" + text + "' is not like 30d, 12h or 90m");
      }
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "d" -> Duration.ofDays(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofMinutes(n);
      };
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
      try (SgmRuntime sgm = open(connection)) {
        ArrayNode list = Json.array();
        sgm.tokens().list().forEach(list::add);
        JsonIo.print(spec, list);
      }
      return ExitCodes.OK;
    }
  }

  @Command(name = "revoke", mixinStandardHelpOptions = true, description = "Revoke a token by id.")
  static final class Revoke implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Connection connection;

    @Parameters(paramLabel = "ID", description = "The token's id, as 'sgm token list' shows it.")
    String id;

    @Override
    public Integer call() {
      try (SgmRuntime sgm = open(connection)) {
        sgm.tokens().revoke(id);
      }
      spec.commandLine().getOut().println("revoked " + id);
      spec.commandLine().getOut().flush();
      return ExitCodes.OK;
    }
  }
}
