package dev.sgm.profile.code;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.difflib.unifieddiff.UnifiedDiff;
import com.github.difflib.unifieddiff.UnifiedDiffFile;
import com.github.difflib.unifieddiff.UnifiedDiffReader;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a unified diff touches: its files (with renames, additions, deletions and binary changes),
 * hunks, and added and removed lines. java-diff-utils reads the files and their hunks; this class
 * only checks that each hunk's body matches its header (so a truncated patch is rejected naming the
 * line, not silently read short), tells added from removed lines inside each hunk (the library
 * folds context into both sides), and picks out git's "Binary files ... differ" lines, which carry
 * no hunk.
 */
final class DiffAnalysis {
  private static final Pattern GIT_HEADER =
      Pattern.compile("^diff --git \"?a/(.+?)\"? \"?b/(.+?)\"?$");
  private static final Pattern HUNK =
      Pattern.compile("^@@ -\\d+(?:,(\\d+))? \\+\\d+(?:,(\\d+))? @@.*");

  private DiffAnalysis() {}

  /** Added and removed lines of one hunk, in the order the hunks appear in the patch. */
  private record HunkLines(int added, int removed) {}

  /** The derived data, or invalid_record on {@code data.patch} saying where the patch breaks. */
  static ObjectNode analyse(String patch) {
    List<String> lines = patch.lines().toList();
    List<HunkLines> hunkLines = checkHunks(lines);
    UnifiedDiff diff = parse(patch);
    ArrayNode changes = Json.array();
    Set<String> paths = new LinkedHashSet<>();
    int nextHunk = 0;
    for (UnifiedDiffFile file : diff.getFiles()) {
      ObjectNode change = pathsAndStatus(file);
      if (change.path("path").isNull() || change.path("path").asText().isEmpty()) {
        continue; // a header-only entry the library reports for a binary file; handled below
      }
      int hunks = file.getPatch().getDeltas().size();
      int added = 0;
      int removed = 0;
      for (int i = 0; i < hunks && nextHunk < hunkLines.size(); i++, nextHunk++) {
        added += hunkLines.get(nextHunk).added();
        removed += hunkLines.get(nextHunk).removed();
      }
      change.put("hunks", hunks).put("added", added).put("removed", removed);
      changes.add(change);
      paths.add(change.path("path").asText());
      if (change.has("old_path")) {
        paths.add(change.path("old_path").asText());
      }
    }
    if (nextHunk != hunkLines.size()) {
      throw SgmException.invalidRecord(
          "data.patch",
          "has " + hunkLines.size() + " hunks but only " + nextHunk + " belong to a file header");
    }
    addBinaryFiles(binaryFiles(lines), changes, paths);
    if (paths.isEmpty()) {
      throw SgmException.invalidRecord(
          "data.patch", "names no file: a unified diff starts with 'diff --git' or '---' lines");
    }
    return result(paths, changes);
  }

  private static UnifiedDiff parse(String patch) {
    try {
      return UnifiedDiffReader.parseUnifiedDiff(
          new ByteArrayInputStream(patch.getBytes(StandardCharsets.UTF_8)));
    } catch (IOException | RuntimeException e) {
      throw SgmException.invalidRecord("data.patch", "is not a unified diff: " + e.getMessage());
    }
  }

  /**
   * A file's change as far as its header tells: its path (and old path when renamed) and status;
   * the path is null or empty for a header-only entry.
   */
  private static ObjectNode pathsAndStatus(UnifiedDiffFile file) {
    String from = strip(file.getFromFile());
    String to = strip(file.getToFile());
    ObjectNode change = Json.object();
    String status;
    if (file.getRenameFrom() != null) {
      status = "renamed";
      change.put("path", file.getRenameTo());
      change.put("old_path", file.getRenameFrom());
    } else if (file.getNewFileMode() != null || from == null) {
      status = "added";
      change.put("path", to);
    } else if (file.getDeletedFileMode() != null || to == null) {
      status = "deleted";
      change.put("path", from);
    } else {
      status = "modified";
      change.put("path", to);
    }
    return change.put("status", status);
  }

  /**
   * Marks the changes of {@code binary} files as such, adding one (with no hunks) for a file the
   * library did not report, since git's binary lines carry no hunk.
   */
  private static void addBinaryFiles(List<String> binary, ArrayNode changes, Set<String> paths) {
    for (String path : binary) {
      ObjectNode existing = null;
      for (var change : changes) {
        if (change.path("path").asText().equals(path)) {
          existing = (ObjectNode) change;
        }
      }
      if (existing == null) {
        existing =
            changes.addObject().put("path", path).put("hunks", 0).put("added", 0).put("removed", 0);
        paths.add(path);
      }
      existing.put("status", "binary");
    }
  }

  /** The files touched, each file's change, and the totals over them. */
  private static ObjectNode result(Set<String> paths, ArrayNode changes) {
    ObjectNode result = Json.object();
    ArrayNode files = result.putArray("files");
    paths.forEach(files::add);
    result.set("file_changes", changes);
    int hunks = 0;
    int added = 0;
    int removed = 0;
    for (var change : changes) {
      hunks += change.path("hunks").asInt();
      added += change.path("added").asInt();
      removed += change.path("removed").asInt();
    }
    result
        .putObject("stats")
        .put("files", changes.size())
        .put("hunks", hunks)
        .put("added", added)
        .put("removed", removed);
    return result;
  }

  /**
   * Checks that every hunk header is well formed and followed by as many lines as it announces;
   * returns each hunk's added and removed line counts.
   */
  private static List<HunkLines> checkHunks(List<String> lines) {
    List<HunkLines> hunks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (!line.startsWith("@@")) {
        continue;
      }
      Matcher header = HUNK.matcher(line);
      if (!header.matches()) {
        throw SgmException.invalidRecord(
            "data.patch", "line " + (i + 1) + ": malformed hunk header '" + line + "'");
      }
      int oldLeft = header.group(1) == null ? 1 : Integer.parseInt(header.group(1));
      int newLeft = header.group(2) == null ? 1 : Integer.parseInt(header.group(2));
      int added = 0;
      int removed = 0;
      int j = i + 1;
      while ((oldLeft > 0 || newLeft > 0) && j < lines.size()) {
        String body = lines.get(j);
        char c = body.isEmpty() ? ' ' : body.charAt(0);
        switch (c) {
          case ' ' -> {
            oldLeft--;
            newLeft--;
          }
          case '-' -> {
            oldLeft--;
            removed++;
          }
          case '+' -> {
            newLeft--;
            added++;
          }
          case '\\' -> {} // "\ No newline at end of file" marks the line before; it is not one
          default ->
              throw SgmException.invalidRecord(
                  "data.patch",
                  "line " + (j + 1) + ": the hunk at line " + (i + 1) + " ends early");
        }
        j++;
      }
      if (oldLeft != 0 || newLeft != 0) {
        throw SgmException.invalidRecord(
            "data.patch", "line " + (i + 1) + ": the hunk announces more lines than the patch has");
      }
      hunks.add(new HunkLines(added, removed));
      i = j - 1;
    }
    return hunks;
  }

  private static List<String> binaryFiles(List<String> lines) {
    List<String> binary = new ArrayList<>();
    String current = null;
    for (String line : lines) {
      Matcher header = GIT_HEADER.matcher(line);
      if (header.matches()) {
        current = header.group(2);
      } else if (current != null
          && ((line.startsWith("Binary files ") && line.endsWith(" differ"))
              || line.equals("GIT binary patch"))) {
        binary.add(current);
      }
    }
    return binary;
  }

  private static String strip(String path) {
    if (path == null || path.equals("/dev/null")) {
      return null;
    }
    return path.startsWith("a/") || path.startsWith("b/") ? path.substring(2) : path;
  }
}
