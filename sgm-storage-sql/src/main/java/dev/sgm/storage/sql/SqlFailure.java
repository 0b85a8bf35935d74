package dev.sgm.storage.sql;

import java.sql.SQLException;

/**
 * A SQL failure inside a unit of work, unchecked so that it passes through the work's lambdas to
 * {@link SqlStorage#inTransaction}, which retries it when it is a conflict.
 */
public final class SqlFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Carries {@code cause} to the retry loop. */
  public SqlFailure(SQLException cause) {
    super(cause);
  }

  /** What failed. */
  public SQLException sql() {
    return (SQLException) getCause();
  }
}
