package dev.sgm.app;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The project a command works in when none is named, found from where it runs: {@code SGM_PROJECT},
 * else the git repository's name (its {@code origin} remote's last path segment without {@code
 * .git}, else its top-level directory's name), else the directory's name. So one user-level
 * configuration (an agent's hooks, its MCP server entry) serves every repository. Git's files are
 * read directly, without running git, since this runs at every session start.
 *
 * @param name the project's name
 * @param source how it was found, for people to read: {@code git remote origin}, ...
 * @param branch the git branch checked out, or null outside a repository or on a detached head
 */
record WorkingProject(String name, String source, String branch) {
  static final String FROM_ENVIRONMENT = "SGM_PROJECT";
  static final String FROM_ORIGIN = "git remote origin";
  static final String FROM_TOP_LEVEL = "git top-level directory";
  static final String FROM_DIRECTORY = "directory name";

  /** The project where this process runs. */
  static WorkingProject here() {
    return of(Path.of("").toAbsolutePath(), System.getenv(FROM_ENVIRONMENT));
  }

  /** The project of {@code directory}; {@code fromEnvironment} (SGM_PROJECT) wins if set. */
  static WorkingProject of(Path directory, String fromEnvironment) {
    Path dir = directory.toAbsolutePath().normalize();
    Path top = topLevel(dir);
    String branch = top == null ? null : branch(gitDirectory(top));
    if (fromEnvironment != null && !fromEnvironment.isBlank()) {
      return new WorkingProject(fromEnvironment.strip(), FROM_ENVIRONMENT, branch);
    }
    if (top != null) {
      String origin = originName(gitDirectory(top));
      if (origin != null) {
        return new WorkingProject(origin, FROM_ORIGIN, branch);
      }
      if (top.getFileName() != null) {
        return new WorkingProject(top.getFileName().toString(), FROM_TOP_LEVEL, branch);
      }
    }
    Path name = dir.getFileName();
    return new WorkingProject(name == null ? "default" : name.toString(), FROM_DIRECTORY, null);
  }

  /** The nearest directory at or above {@code dir} that has a {@code .git}, or null. */
  private static Path topLevel(Path dir) {
    for (Path at = dir; at != null; at = at.getParent()) {
      if (Files.exists(at.resolve(".git"))) {
        return at;
      }
    }
    return null;
  }

  /** The repository's git directory: {@code .git}, or where a worktree's {@code .git} file says. */
  private static Path gitDirectory(Path top) {
    Path dotGit = top.resolve(".git");
    if (Files.isRegularFile(dotGit)) {
      String line = firstLine(dotGit);
      if (line != null && line.startsWith("gitdir:")) {
        return top.resolve(line.substring("gitdir:".length()).strip()).normalize();
      }
    }
    return dotGit;
  }

  /** The directory holding the repository's config: a worktree's common directory, if any. */
  private static Path commonDirectory(Path gitDir) {
    String common = firstLine(gitDir.resolve("commondir"));
    return common == null ? gitDir : gitDir.resolve(common.strip()).normalize();
  }

  private static String branch(Path gitDir) {
    String head = firstLine(gitDir.resolve("HEAD"));
    String prefix = "ref: refs/heads/";
    return head != null && head.startsWith(prefix) ? head.substring(prefix.length()).strip() : null;
  }

  /** The last path segment of the {@code origin} remote's URL, without {@code .git}; or null. */
  private static String originName(Path gitDir) {
    List<String> lines;
    try {
      lines = Files.readAllLines(commonDirectory(gitDir).resolve("config"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return null;
    }
    boolean inOrigin = false;
    for (String raw : lines) {
      String line = raw.strip();
      if (line.startsWith("[")) {
        inOrigin = line.replaceAll("\\s+", " ").equals("[remote \"origin\"]");
      } else if (inOrigin && line.startsWith("url")) {
        int equals = line.indexOf('=');
        if (equals > 0 && line.substring(0, equals).strip().equals("url")) {
          return lastSegment(line.substring(equals + 1).strip());
        }
      }
    }
    return null;
  }

  /**
   * {@code git@host:team/sgm.git}, {@code https://host/team/sgm/} and {@code /srv/sgm} give sgm.
   */
  static String lastSegment(String url) {
    // A URL's host is not a path segment: https://host/ names no repository.
    String path = url.replaceFirst("^[A-Za-z][A-Za-z0-9+.-]*://[^/]*", "");
    path = path.replaceAll("[/\\\\]+$", "");
    int cut =
        Math.max(Math.max(path.lastIndexOf('/'), path.lastIndexOf(':')), path.lastIndexOf('\\'));
    String name = path.substring(cut + 1);
    if (name.endsWith(".git")) {
      name = name.substring(0, name.length() - ".git".length());
    }
    return name.isBlank() ? null : name;
  }

  private static String firstLine(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return lines.isEmpty() ? null : lines.get(0);
    } catch (IOException e) {
      return null;
    }
  }
}
