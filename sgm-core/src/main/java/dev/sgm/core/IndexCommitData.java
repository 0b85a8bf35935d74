package dev.sgm.core;

import dev.sgm.api.spi.Storage;
import dev.sgm.search.SearchIndex;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What the search index records of itself with each commit (its format, the store it follows, the
 * sequence number it has applied, the embedder of its vectors), and what that says when an index is
 * found on disk: whether the follower goes on from it or rebuilds it.
 */
final class IndexCommitData {
  private static final System.Logger LOG = System.getLogger(IndexCommitData.class.getName());

  /** The index format this build writes; an index of another format is rebuilt. */
  static final String FORMAT = "5";

  private static final String FORMAT_KEY = "sgm.format";
  private static final String STORAGE_KEY = "sgm.storage";
  private static final String SEQ_KEY = "sgm.seq";
  private static final String MODEL_KEY = "sgm.embedder";

  private final Storage storage;
  private final boolean embeds;
  private final String embedderName;

  /**
   * @param embeds whether an embedding model is active
   * @param embedderName the name of the plugin that provides it, or "" without one
   */
  IndexCommitData(Storage storage, boolean embeds, String embedderName) {
    this.storage = storage;
    this.embeds = embeds;
    this.embedderName = embedderName;
  }

  /** What a commit of an index that holds every change through {@code through} records. */
  Map<String, String> through(long through) {
    Map<String, String> data = new HashMap<>();
    data.put(FORMAT_KEY, FORMAT);
    data.put(STORAGE_KEY, storage.identity());
    data.put(SEQ_KEY, Long.toString(through));
    data.put(MODEL_KEY, embedderName);
    return data;
  }

  /** The sequence number through which an index that recorded {@code data} holds every change. */
  static long appliedThrough(Map<String, String> data) {
    return Long.parseLong(data.getOrDefault(SEQ_KEY, "0"));
  }

  /**
   * Why an index that recorded {@code data} cannot be followed on from, and is to be rebuilt; null
   * when it can.
   */
  String rebuildReason(Map<String, String> data) {
    if (data.isEmpty()) {
      return "there is none yet";
    } else if (!storage.identity().equals(data.get(STORAGE_KEY))) {
      return "it was built from another store";
    } else if (embeds
        && !data.getOrDefault(MODEL_KEY, "").isEmpty()
        && !embedderName.equals(data.get(MODEL_KEY))) {
      return "its vectors come from the embedder " + data.get(MODEL_KEY);
    } else if (appliedThrough(data) < storage.changesRetainedAfter()) {
      return "the changes it would follow from are older than the change log keeps";
    } else if (appliedThrough(data) > storage.committedSequence()) {
      // The store went back in time (a backup restored): new writes would reuse numbers the index
      // believes it has applied, and be skipped.
      return "it has applied writes the store does not have (was the store restored?)";
    }
    return null;
  }

  /**
   * Opens the index in {@code directory}, emptying the directory first when the index there is of
   * another format; null, with the directory emptied, when the index there cannot be read.
   */
  static SearchIndex openExisting(Path directory) throws IOException {
    Files.createDirectories(directory);
    try {
      // An index of another format may not even open with this build's settings (its segments'
      // order, say), so its format is read first.
      Map<String, String> committed = SearchIndex.committedData(directory);
      if (!committed.isEmpty() && !FORMAT.equals(committed.get(FORMAT_KEY))) {
        LOG.log(
            System.Logger.Level.INFO,
            "rebuilding the search index: it is of format "
                + committed.get(FORMAT_KEY)
                + ", this build writes "
                + FORMAT);
        clear(directory);
      }
      return SearchIndex.open(directory);
    } catch (IOException | RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "the search index in " + directory + " cannot be read (" + e + "); rebuilding it");
      clear(directory);
      return null;
    }
  }

  private static void clear(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        if (!p.equals(dir)) {
          Files.delete(p);
        }
      }
    }
  }
}
