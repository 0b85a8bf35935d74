package dev.sgm.embedding.bge;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;

/**
 * How the model runs, from the keys under {@code bge-small-en.}: how many texts are embedded at
 * once, how many threads ONNX Runtime uses inside one of them, how many texts a batch holds, and
 * how much of a long text is embedded.
 *
 * @param workers texts embedded at once, across every caller ({@code bge-small-en.workers}; the
 *     number of processors by default)
 * @param intraOpThreads ONNX Runtime's threads inside one text ({@code
 *     bge-small-en.intra-op-threads}; 1 by default, see {@link #DEFAULT_INTRA_OP_THREADS})
 * @param batchSize texts queued at once for one caller before its next batch ({@code
 *     bge-small-en.batch-size}, 64 by default)
 * @param maxChars characters of a text that are embedded; the rest is ignored ({@code
 *     bge-small-en.max-chars}, 2048 by default: about the model's window of 512 tokens)
 */
record BgeSettings(int workers, int intraOpThreads, int batchSize, int maxChars) {
  static final String PREFIX = BgeEmbedderProvider.NAME + ".";

  /**
   * One thread per text: short texts parallelise poorly inside one model run, and several threads
   * per run multiply with concurrent callers into more threads than cores (measured in
   * sgm-benchmarks' run-embed).
   */
  static final int DEFAULT_INTRA_OP_THREADS = 1;

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
    return new BgeSettings(
        config.getInt(PREFIX + "workers", Runtime.getRuntime().availableProcessors()),
        config.getInt(PREFIX + "intra-op-threads", DEFAULT_INTRA_OP_THREADS),
        config.getInt(PREFIX + "batch-size", 64),
        config.getInt(PREFIX + "max-chars", 2048));
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
