package dev.sgm.api.spi;

import dev.sgm.api.SgmService;
import java.time.Clock;

/** What the core hands a profile when creating it. */
public interface ProfileContext {
  /**
   * The engine's operations. Available once start-up completes; a profile calls it from its
   * operations, not from its constructor.
   */
  SgmService service();

  /** The clock the engine stamps records with. */
  Clock clock();
}
