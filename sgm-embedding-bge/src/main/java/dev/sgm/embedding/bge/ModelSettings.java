package dev.sgm.embedding.bge;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import java.util.Set;

/**
 * How an embedder's models run, from the keys under its plugin's name ({@code bge-small-en.}, say):
 * how many texts are embedded at once, how many threads ONNX Runtime uses inside one of them, how
 * many texts a batch holds, and how much of a long text is embedded.
 *
 * <p>The defaults come from sgm-benchmarks' run-embed on two cores, with bge. A short query is many
 * small operations: two threads inside one run, spinning between operations as ONNX Runtime does by
 * default, embed it in 3.6 ms where one thread takes 5.9 ms. Passages are embedded for throughput:
 * two runs at once of one thread each embed 357 texts/s, one run on two threads 219. Queries and
 * passages have their own sessions and workers, so a query never waits for a passage.
 *
 * @param prefix the plugin's name and a dot, which the keys start with
 * @param workers passages embedded at once, across every caller, each on one thread ({@code
 *     workers}; the number of processors by default)
 * @param intraOpThreads ONNX Runtime's threads inside one query ({@code intra-op-threads}; the
 *     plugin's default); queries are embedded {@code processors ÷ intra-op threads} at once
 * @param batchSize texts queued at once for one caller before its next batch ({@code batch-size},
 *     64 by default)
 * @param maxChars characters of a text that are embedded; the rest is ignored ({@code max-chars},
 *     2048 by default: about the model's window of 512 tokens)
 */
public record ModelSettings(
    String prefix, int workers, int intraOpThreads, int batchSize, int maxChars) {
  /** Checks each value's range, naming its key. */
  public ModelSettings {
    check(prefix, "workers", workers, 1, 256);
    check(prefix, "intra-op-threads", intraOpThreads, 1, 256);
    check(prefix, "batch-size", batchSize, 1, 4096);
    check(prefix, "max-chars", maxChars, 16, 1 << 20);
  }

  /**
   * The settings under {@code plugin.} in {@code config}, each defaulting as above; {@code
   * intraOpThreads} is the plugin's default for threads inside one query (at most the processors).
   */
  public static ModelSettings from(Config config, String plugin, int intraOpThreads) {
    String prefix = plugin + ".";
    int processors = Runtime.getRuntime().availableProcessors();
    return new ModelSettings(
        prefix,
        config.getInt(prefix + "workers", processors),
        config.getInt(prefix + "intra-op-threads", Math.min(intraOpThreads, processors)),
        config.getInt(prefix + "batch-size", 64),
        config.getInt(prefix + "max-chars", 2048));
  }

  /** The configuration keys these settings are read from, for the plugin {@code plugin}. */
  public static Set<String> keys(String plugin) {
    return Set.of(
        plugin + ".workers",
        plugin + ".intra-op-threads",
        plugin + ".batch-size",
        plugin + ".max-chars");
  }

  /** Queries embedded at once: as many runs as the processors hold at their intra-op threads. */
  int queryWorkers() {
    return Math.max(1, Runtime.getRuntime().availableProcessors() / intraOpThreads);
  }

  private static void check(String prefix, String key, int value, int min, int max) {
    if (value < min || value > max) {
      // Worded like Config's own errors about a value.
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "configuration "
              + prefix
              + key
              + ": "
              + value
              + " is not between "
              + min
              + " and "
              + max);
    }
  }
}
