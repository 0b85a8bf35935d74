package dev.sgm.api.spi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.SgmClient;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;

/**
 * What the command line gives a plugin's command to work with: the memory its shared options name
 * (the data directory, or a server with {@code --remote}), its streams, and the defaults every
 * command uses for scope and agent.
 */
public interface CommandContext {
  /**
   * The memory to run operations on, opened on first use and closed when the command ends: the data
   * directory (through the process that holds it, if any) or the server of {@code --remote}.
   */
  SgmClient memory();

  PrintWriter out();

  PrintWriter err();

  InputStream in();

  /** Whether standard input is a terminal (nothing was piped in). */
  boolean interactive();

  /** The directory the command runs in. */
  Path workingDirectory();

  /**
   * The scope a command works in: {@code project} (else the default project: the git repository's
   * name where the command runs, else the directory's name) with {@code more} pairs.
   */
  ObjectNode scope(String project, Map<String, String> more);

  /** The agent a command writes as: {@code agent}, else the user's default agent. */
  String agent(String agent);

  /** Prints a result as the command line prints JSON. */
  void print(JsonNode result);

  /** Reports progress of a long command ({@code total} -1 when unknown), on standard error. */
  void progress(String what, long done, long total);
}
