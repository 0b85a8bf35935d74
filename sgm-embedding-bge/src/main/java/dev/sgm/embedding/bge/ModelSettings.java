package dev.sgm.embedding.bge;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;

/**
 * How the model runs, from the keys under {@code bge-small-en.}: how many texts are embedded at
 * once, how many threads ONNX Runtime uses inside one of them, how many texts a batch holds, and
 * how much of a long text is embedded.
 *
 * <p>The defaults come from sgm-benchmarks' run-embed on two cores. A short query is many small
 * operations: two threads inside one run, spinning between operations as ONNX Runtime does by
 * default, embed it in 3.6 ms where one thread takes 5.9 ms. Passages are embedded for throughput:
 * two runs at once of one thread each embed 357 texts/s, one run on two threads 219. Queries and
 * passages have their own sessions and workers, so a query never waits for a passage.
 *
 * @param workers passages embedded at once, across every caller, each on one thread ({@code
 *     bge-small-en.workers}; the number of processors by default)
 * @param intraOpThreads ONNX Runtime's threads inside one query ({@code
 *     bge-small-en.intra-op-threads}; 2, or 1 on one processor, by default); queries are embedded
 *     {@code processors ÷ intra-op threads} at once
 * @param batchSize texts queued at once for one caller before its next batch ({@code
 *     bge-small-en.batch-size}, 64 by default)
 * @param maxChars characters of a text that are embedded; the rest is ignored ({@code
 *     bge-small-en.max-chars}, 2048 by default: about the model's window of 512 tokens)
 */
record BgeSettings(int workers, int intraOpThreads, int batchSize, int maxChars) {
  static final String PREFIX = BgeEmbedderProvider.NAME + ".";

  BgeSettings {
    check("workers", workers, 1, 256);
    check("intra-op-threads", intraOpThreads, 1, 256);
    check("batch-size", batchSize, 1, 4096);
    check("max-chars", maxChars, 16, 1 << 20);
  }

  static BgeSettings defaults() {
    return from(Config.empty());
  }

  static BgeSettings from(Config config) {
    int processors = Runtime.getRuntime().availableProcessors();
    int intraOpThreads = config.getInt(PREFIX + "intra-op-threads", Math.min(2, processors));
    return new BgeSettings(
        config.getInt(PREFIX + "workers", processors),
        intraOpThreads,
        config.getInt(PREFIX + "batch-size", 64),
        config.getInt(PREFIX + "max-chars", 2048));
  }

  /** Queries embedded at once: as many runs as the processors hold at their intra-op threads. */
  int queryWorkers() {
    return Math.max(1, Runtime.getRuntime().availableProcessors() / intraOpThreads);
  }

  private static void check(String key, int value, int min, int max) {
    if (value < min || value > max) {
      // Worded like Config's own errors about a value.
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "configuration "
              + PREFIX
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
