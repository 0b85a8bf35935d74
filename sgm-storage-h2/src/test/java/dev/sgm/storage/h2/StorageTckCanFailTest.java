package dev.sgm.storage.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.sgm.api.ContentReference;
import dev.sgm.api.Scope;
import dev.sgm.api.StoredContent;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import dev.sgm.api.spi.StorageTransaction;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.TokenStore;
import dev.sgm.api.spi.VersionEntry;
import dev.sgm.api.spi.WriteLog;
import dev.sgm.tck.storage.StorageTck;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Proves the storage suite can fail: each broken storage wraps the real H2 store and breaks one
 * rule, and the suite's tests of that rule must fail while the healthy store fails none.
 */
class StorageTckCanFailTest {

  /** The real store with one thing broken by a subclass. */
  abstract static class Broken implements Storage {
    final Storage real;

    Broken(Storage real) {
      this.real = real;
    }

    @Override
    public <T> T inTransaction(Function<StorageTransaction, T> work) {
      return real.inTransaction(work);
    }

    @Override
    public Optional<StoredRecord> find(Scope scope, String id) {
      return real.find(scope, id);
    }

    @Override
    public StoragePage query(StorageQuery query) {
      return real.query(query);
    }

    @Override
    public long committedSequence() {
      return real.committedSequence();
    }

    @Override
    public ChangeBatch changesAfter(long after, int limit) {
      return real.changesAfter(after, limit);
    }

    @Override
    public List<StoredRecord> live(Collection<Long> rowKeys) {
      return real.live(rowKeys);
    }

    @Override
    public List<StoredRecord> scanLive(long afterRowKey, int limit) {
      return real.scanLive(afterRowKey, limit);
    }

    @Override
    public long countLive() {
      return real.countLive();
    }

    @Override
    public void onCommit(Runnable listener) {
      real.onCommit(listener);
    }

    @Override
    public String identity() {
      return real.identity();
    }

    @Override
    public void putContent(ContentReference reference, byte[] bytes) {
      real.putContent(reference, bytes);
    }

    @Override
    public void putContent(ContentReference reference, byte[] bytes, String holder) {
      real.putContent(reference, bytes, holder);
    }

    @Override
    public boolean holdsContent(String hash, String holder) {
      return real.holdsContent(hash, holder);
    }

    @Override
    public Optional<StoredContent> getContent(String hash) {
      return real.getContent(hash);
    }

    @Override
    public long changesRetainedAfter() {
      return real.changesRetainedAfter();
    }

    @Override
    public long pruneChangesBefore(long micros) {
      return real.pruneChangesBefore(micros);
    }

    @Override
    public Optional<TokenStore> tokens() {
      return real.tokens();
    }

    @Override
    public void checkAvailable() {
      real.checkAvailable();
    }

    @Override
    public String describe() {
      return real.describe();
    }

    @Override
    public void close() {
      real.close();
    }
  }

  /** The suite over a broken store made by {@link #broken}. */
  abstract static class BrokenSuite extends StorageTck {
    private Path dir;

    abstract Storage broken(Storage real);

    @Override
    protected Storage createEmpty() {
      dir = H2StorageTest.newDirectory();
      return broken(H2StorageTest.openIn(dir));
    }

    @Override
    protected Storage reopen() {
      return broken(H2StorageTest.openIn(dir));
    }
  }

  /** findForUpdate reads without locking: two read-modify-writes can interleave. */
  static class LockFree extends BrokenSuite {
    @Override
    Storage broken(Storage real) {
      return new Broken(real) {
        @Override
        public <T> T inTransaction(Function<StorageTransaction, T> work) {
          return real.inTransaction(tx -> work.apply(unlocked(tx, real)));
        }
      };
    }
  }

  private static StorageTransaction unlocked(StorageTransaction tx, Storage real) {
    return new StorageTransaction() {
      @Override
      public Optional<StoredRecord> findForUpdate(Scope scope, String id) {
        Optional<StoredRecord> found = real.find(scope, id);
        // Give the other writers time to read the same version.
        Thread.yield();
        return found;
      }

      @Override
      public void put(StoredRecord record, WriteLog log) {
        tx.put(record, log);
      }

      @Override
      public void remove(Scope scope, String id, WriteLog log) {
        tx.remove(scope, id, log);
      }

      @Override
      public List<StoredRecord> rows(Scope scope, boolean descendants) {
        return tx.rows(scope, descendants);
      }

      @Override
      public List<VersionEntry> versions(Scope scope, String id, long beforeSeq, int limit) {
        return tx.versions(scope, id, beforeSeq, limit);
      }

      @Override
      public List<VersionEntry> stateAt(Scope scope, boolean descendants, long seq) {
        return tx.stateAt(scope, descendants, seq);
      }

      @Override
      public long currentSequence() {
        return tx.currentSequence();
      }

      @Override
      public void putSnapshot(SnapshotEntry snapshot) {
        tx.putSnapshot(snapshot);
      }

      @Override
      public Optional<SnapshotEntry> snapshot(Scope scope, String name) {
        return tx.snapshot(scope, name);
      }

      @Override
      public List<SnapshotEntry> snapshots(Scope scope) {
        return tx.snapshots(scope);
      }

      @Override
      public boolean rewriteVersion(Scope scope, String id, long seq, String document) {
        return tx.rewriteVersion(scope, id, seq, document);
      }

      @Override
      public boolean rewriteHiddenRow(Scope scope, String id, long version, String document) {
        return tx.rewriteHiddenRow(scope, id, version, document);
      }
    };
  }

  /**
   * Short units share a commit carelessly: a unit that fails is reported as failed, but what it
   * wrote before failing is committed with the others.
   */
  static class SharedFate extends BrokenSuite {
    @Override
    Storage broken(Storage real) {
      return new Broken(real) {
        @Override
        public <T> T inShortTransaction(Function<StorageTransaction, T> work) {
          RuntimeException[] failure = new RuntimeException[1];
          T result =
              real.inTransaction(
                  tx -> {
                    try {
                      return work.apply(tx);
                    } catch (RuntimeException e) {
                      failure[0] = e;
                      return null;
                    }
                  });
          if (failure[0] != null) {
            throw failure[0];
          }
          return result;
        }
      };
    }
  }

  /** A full batch of changes loses its last change but says it is caught up past it. */
  static class GappyChanges extends BrokenSuite {
    @Override
    Storage broken(Storage real) {
      return new Broken(real) {
        @Override
        public ChangeBatch changesAfter(long after, int limit) {
          ChangeBatch batch = real.changesAfter(after, limit);
          if (batch.changes().size() < limit || limit < 2) {
            return batch;
          }
          return new ChangeBatch(
              batch.changes().subList(0, batch.changes().size() - 1), batch.through());
        }
      };
    }
  }

  /** The identity is made up anew on every open. */
  static class ForgetfulIdentity extends BrokenSuite {
    @Override
    Storage broken(Storage real) {
      String made = UUID.randomUUID().toString();
      return new Broken(real) {
        @Override
        public String identity() {
          return made;
        }
      };
    }
  }

  /** Reads the committed sequence with the rows from the first time it was asked, never again. */
  static class StaleSequenceWithRows extends BrokenSuite {
    @Override
    Storage broken(Storage real) {
      return new Broken(real) {
        private long first = -1;

        @Override
        public LiveRows liveAndCommitted(Collection<Long> rowKeys) {
          if (first < 0) {
            first = real.committedSequence();
          }
          return new LiveRows(real.live(rowKeys), first);
        }
      };
    }
  }

  /** Reads the rows with a sequence ahead of what has committed, which no index would reach. */
  static class SequenceAhead extends BrokenSuite {
    @Override
    Storage broken(Storage real) {
      return new Broken(real) {
        @Override
        public LiveRows liveAndCommitted(Collection<Long> rowKeys) {
          return new LiveRows(real.live(rowKeys), real.committedSequence() + 1);
        }
      };
    }
  }

  /** Reads one live row twice. */
  static class SloppyRows extends BrokenSuite {
    @Override
    Storage broken(Storage real) {
      return new Broken(real) {
        @Override
        public LiveRows liveAndCommitted(Collection<Long> rowKeys) {
          List<StoredRecord> rows = new java.util.ArrayList<>(real.live(rowKeys));
          if (!rows.isEmpty()) {
            rows.add(rows.get(0));
          }
          return new LiveRows(rows, real.committedSequence());
        }
      };
    }
  }

  /** Listeners are told before the commit, and for transactions that wrote nothing too. */
  static class EagerListeners extends BrokenSuite {
    @Override
    Storage broken(Storage real) {
      return new Broken(real) {
        private final List<Runnable> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void onCommit(Runnable listener) {
          listeners.add(listener);
        }

        @Override
        public <T> T inTransaction(Function<StorageTransaction, T> work) {
          listeners.forEach(Runnable::run);
          return real.inTransaction(work);
        }
      };
    }
  }

  /** Revoking says yes but changes nothing: a revoked token would go on authenticating. */
  static class ForgetfulRevoke extends BrokenSuite {
    @Override
    Storage broken(Storage real) {
      TokenStore tokens = real.tokens().orElseThrow();
      TokenStore forgetful =
          new TokenStore() {
            @Override
            public void add(Entry token) {
              tokens.add(token);
            }

            @Override
            public Optional<Entry> find(String id) {
              return tokens.find(id);
            }

            @Override
            public List<Entry> list() {
              return tokens.list();
            }

            @Override
            public boolean revoke(String id, Instant at) {
              return tokens.find(id).filter(e -> e.revokedAt() == null).isPresent();
            }
          };
      return new Broken(real) {
        @Override
        public Optional<TokenStore> tokens() {
          return Optional.of(forgetful);
        }
      };
    }
  }

  /** Pruning drops the whole log, the entries newer than asked included. */
  static class EagerPruning extends BrokenSuite {
    @Override
    Storage broken(Storage real) {
      return new Broken(real) {
        @Override
        public long pruneChangesBefore(long micros) {
          return real.pruneChangesBefore(Long.MAX_VALUE);
        }
      };
    }
  }

  /** Pruning drops entries but the retained mark stays at 0: a follower would miss them. */
  static class ForgetfulMark extends BrokenSuite {
    @Override
    Storage broken(Storage real) {
      return new Broken(real) {
        @Override
        public long changesRetainedAfter() {
          return 0;
        }
      };
    }
  }

  private static Set<String> failed(Class<?> suite) {
    Set<String> failed = new TreeSet<>();
    LauncherFactory.create()
        .execute(
            LauncherDiscoveryRequestBuilder.request().selectors(selectClass(suite)).build(),
            new TestExecutionListener() {
              @Override
              public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (id.isTest()
                    && id.getSource().orElse(null) instanceof MethodSource m
                    && result.getStatus() == TestExecutionResult.Status.FAILED) {
                  failed.add(m.getMethodName());
                }
              }
            });
    return failed;
  }

  @Test
  void theHealthyStoreFailsNothing() {
    assertEquals(Set.of(), failed(H2StorageTest.class));
  }

  @Test
  void readingWithoutALockLosesUpdates() {
    Set<String> failed = failed(LockFree.class);
    assertTrue(failed.contains("concurrency_readModifyWriteLosesNoUpdate"), failed::toString);
    assertTrue(
        Set.of("concurrency_readModifyWriteLosesNoUpdate", "concurrency_ifAbsentHasOneWinner")
            .containsAll(failed),
        failed::toString);
  }

  @Test
  void aFollowerThatSkipsChangesIsCaught() {
    Set<String> failed = failed(GappyChanges.class);
    assertTrue(failed.contains("sequence_pagingResumesWithoutGapsOrRepeats"), failed::toString);
    assertTrue(
        Set.of("sequence_pagingResumesWithoutGapsOrRepeats", "sequence_aFollowerNeverMissesAChange")
            .containsAll(failed),
        failed::toString);
  }

  @Test
  void aFailingShortUnitThatLeavesItsWritesIsCaught() {
    assertEquals(
        Set.of("concurrency_shortUnitsFailAloneAndLandInCommitOrder"), failed(SharedFate.class));
  }

  @Test
  void aSequenceReadBeforeTheRowsAreAskedForIsCaught() {
    assertEquals(Set.of("live_withTheCommittedSequence"), failed(StaleSequenceWithRows.class));
  }

  @Test
  void aSequenceAheadOfTheCommitsIsCaught() {
    assertEquals(Set.of("live_withTheCommittedSequence"), failed(SequenceAhead.class));
  }

  @Test
  void aRowReadTwiceIsCaught() {
    assertEquals(Set.of("live_withTheCommittedSequence"), failed(SloppyRows.class));
  }

  @Test
  void anIdentityThatChangesOnReopenIsCaught() {
    assertEquals(Set.of("identity_stableAcrossOpensAndDistinct"), failed(ForgetfulIdentity.class));
  }

  @Test
  void listenersToldBeforeTheCommitAreCaught() {
    assertEquals(Set.of("onCommit_runsAfterWritingCommits"), failed(EagerListeners.class));
  }

  @Test
  void aRevocationThatDoesNothingIsCaught() {
    assertEquals(Set.of("tokens_revokedOnceAndDurably"), failed(ForgetfulRevoke.class));
  }

  @Test
  void pruningNewerEntriesIsCaught() {
    assertEquals(Set.of("retention_pruneKeepsEveryChangeAboveTheMark"), failed(EagerPruning.class));
  }

  @Test
  void aRetainedMarkBelowWhatWasPrunedIsCaught() {
    Set<String> failed = failed(ForgetfulMark.class);
    assertTrue(failed.contains("retention_pruneKeepsEveryChangeAboveTheMark"), failed::toString);
    assertTrue(
        Set.of("retention_pruneKeepsEveryChangeAboveTheMark", "retention_oldEntriesArePruned")
            .containsAll(failed),
        failed::toString);
  }
}
