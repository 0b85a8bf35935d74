package dev.sgm.app;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One installation of hooks: which agent, for the user or for one project, and the commands it
 * writes, which run this sgm ({@code sgm}, absolute when known) on the memory the install named.
 *
 * @param agent the agent
 * @param projectDir the project's directory, or null for the user's settings
 * @param sgm the sgm command the agent runs
 * @param passOn the options every command written carries ({@code --data DIR}, {@code --remote
 *     URL}, {@code --token TOKEN})
 * @param places where the settings are
 */
record HookSetup(
    HookAgent agent, Path projectDir, String sgm, List<String> passOn, HookPlaces places) {
  /** What a shell takes as one word without quotes. */
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./:@%+=,-]+");

  HookSetup {
    projectDir = projectDir == null ? null : projectDir.toAbsolutePath().normalize();
    passOn = List.copyOf(passOn);
  }

  /** The command a hook runs for {@code event}: a shell command line, as every agent takes it. */
  String command(String event) {
    List<String> words = new ArrayList<>(List.of(sgm, "hooks", "run", agent.key(), event));
    words.addAll(passOn);
    List<String> quoted = new ArrayList<>();
    words.forEach(word -> quoted.add(quote(word)));
    return String.join(" ", quoted);
  }

  /** The arguments of the MCP server entry: the project is where the agent runs. */
  List<String> mcpArguments() {
    List<String> args = new ArrayList<>(List.of("mcp", "--agent", agent.key()));
    args.addAll(passOn);
    return args;
  }

  /** For people: {@code claude-code (user)} or {@code claude-code in /path}. */
  String label() {
    return agent.key() + (projectDir == null ? " (user)" : " in " + projectDir);
  }

  /** The file that records what this installation added. */
  Path ledger() {
    String name =
        projectDir == null
            ? agent.key() + "-user.json"
            : agent.key() + "-project-" + sha256(projectDir.toString()).substring(0, 16) + ".json";
    return places.ledgers().resolve(name);
  }

  /** {@code word} as a POSIX shell reads it back: as is when plain, else single-quoted. */
  static String quote(String word) {
    if (!word.isEmpty() && PLAIN.matcher(word).matches()) {
      return word;
    }
    return "'" + word.replace("'", "'\\''") + "'";
  }

  static String sha256(String text) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
