package dev.sgm.api.spi;

import dev.sgm.api.Caller;
import dev.sgm.api.ChangeEvent;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.RetrieveResult;
import dev.sgm.api.SgmService;
import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/** What the core hands a profile when creating it. */
public interface ProfileContext {
  /**
   * The engine's operations. Available once start-up completes; a profile calls it from its
   * operations, not from its constructor.
   */
  SgmService service();

  /** The clock the engine stamps records with. */
  Clock clock();

  /**
   * Runs {@code work} in one transaction on behalf of {@code caller}: every write it makes through
   * the {@link RecordWriter} commits together or not at all. The work may be run again when a
   * concurrent write forces a retry, so it must depend only on what it reads through the writer.
   */
  <T> T atomically(Caller caller, Function<RecordWriter, T> work);

  /**
   * Answers {@code query} from {@code candidates} instead of the store, with the same visibility,
   * clearance, matching, ranking and paging rules as {@code retrieve} for {@code caller}: for views
   * of past states, such as snapshots. A candidate of a scope the caller may not read is left out;
   * one above its clearance matches and comes back as the caller sees it, without what it
   * withholds.
   */
  RetrieveResult retrieveAmong(Caller caller, List<MemoryRecord> candidates, RetrieveQuery query);

  /**
   * Calls {@code listener} with every committed change of every scope, in commit order, within a
   * second of its commit (this node's at once while anyone watches the change feed), on one shared
   * thread: it must return quickly and hand any real work to a thread of its own.
   */
  default void onChange(Consumer<ChangeEvent> listener) {}

  /**
   * Calls {@code action} with every live record of {@code type} in the store, in no particular
   * order: a full scan, for work a profile must resume at start-up (such as leases to lapse).
   */
  default void forEachLive(String type, Consumer<MemoryRecord> action) {}
}
