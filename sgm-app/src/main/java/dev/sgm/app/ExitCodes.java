package dev.sgm.app;

import dev.sgm.api.ErrorCode;

/**
 * The exit codes scripts can rely on. 0 is success; 2 is also picocli's code for a bad command
 * line.
 */
final class ExitCodes {
  static final int OK = 0;
  static final int FAILED = 1;
  static final int INVALID = 2;
  static final int NOT_FOUND = 3;
  static final int CONFLICT = 4;
  static final int UNAVAILABLE = 5;
  static final int UNSUPPORTED = 6;
  static final int TOO_LARGE = 7;
  static final int DENIED = 8;

  /** {@code sgm tck}: the core cases passed, but a profile the target advertises failed. */
  static final int PROFILE_FAILED = 9;

  private ExitCodes() {}

  static int of(ErrorCode code) {
    return switch (code) {
      case INVALID_RECORD, INVALID_REQUEST -> INVALID;
      case NOT_FOUND, CURSOR_EXPIRED -> NOT_FOUND;
      case CONFLICT -> CONFLICT;
      case UNAVAILABLE -> UNAVAILABLE;
      case UNSUPPORTED_CAPABILITY, UNSUPPORTED_VERSION -> UNSUPPORTED;
      case TOO_LARGE -> TOO_LARGE;
      case UNAUTHENTICATED, FORBIDDEN -> DENIED;
      case INTERNAL -> FAILED;
    };
  }
}
