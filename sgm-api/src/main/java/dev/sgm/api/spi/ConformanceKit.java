package dev.sgm.api.spi;

import dev.sgm.api.SgmClient;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The conformance kit as a {@link ServiceLoader} provider, so that a command can run it against any
 * server when the kit (and the test engine it brings) is on the module path, and do without it
 * otherwise.
 */
public interface ConformanceKit {
  /**
   * What a run found. Conformance is what the seeds define: every core case (C1–C12), and each
   * profile the target advertises. The kit's further rules check this project's own contract, so
   * their failures are reported without making a target non-conforming.
   */
  enum Verdict {
    /** Every rule that ran passed. */
    CONFORMING,
    /** The core cases and every advertised profile passed; some of the further rules failed. */
    FURTHER_RULES_FAILED,
    /** The core cases passed, but the suite of a profile the target advertises failed. */
    PROFILE_FAILED,
    /** A core case (C1–C12) failed. */
    CORE_FAILED
  }

  /**
   * Runs every suite against {@code target}: the core cases, each advertised profile's, and this
   * project's further rules; prints a line per rule and a verdict per suite to {@code out}, and
   * JUnit XML reports to {@code reports} unless it is null.
   */
  Verdict run(SgmClient target, Path reports, PrintWriter out);

  /** The kit on the module path, if one is. */
  static Optional<ConformanceKit> find() {
    return Plugins.load(ConformanceKit.class).findFirst();
  }
}
