package dev.sgm.api.spi;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import java.util.List;

/**
 * A store of a {@link StorageProvider#oneProcessAtATime() one-process-at-a-time} storage could not
 * be opened because another process has it open: the caller may wait for that process, or reach the
 * store through it.
 */
public final class StoreInUseException extends SgmException {
  private static final long serialVersionUID = 1L;

  /** The store {@code description} (where it lives, for people to read) is open elsewhere. */
  public StoreInUseException(String description, Throwable cause) {
    super(
        ErrorCode.UNAVAILABLE,
        "the data store " + description + " is in use by another process",
        List.of(),
        cause);
  }
}
