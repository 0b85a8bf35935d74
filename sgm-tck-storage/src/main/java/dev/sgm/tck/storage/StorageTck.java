package dev.sgm.tck.storage;

import dev.sgm.api.spi.Storage;

/**
 * The storage conformance suite: the semantics of the {@link Storage} SPI that the engine relies on
 * and that no type signature states, checked against a real storage. Every storage plugin inherits
 * it and passes it: rows kept exactly, atomic read-modify-write under concurrency (what {@code
 * expected_version}, {@code if_absent} and {@code tasks.claim} stand on), a write sequence in
 * commit order that a follower can trust, the version log and snapshots, content, identity, the
 * change log's retention, access tokens and a health check. Extend this class and give the storage
 * ({@link #createEmpty()}, {@link #reopen()}); every area runs against it.
 *
 * <p>The areas extend one another on {@link StorageFixture}, this class last: records and units of
 * work ({@link StorageRecordsTck}), the change log and its sequence ({@link StorageChangeLogTck}),
 * live rows and queries ({@link StorageQueriesTck}), versions and snapshots ({@link
 * StorageHistoryTck}), content and tokens ({@link StorageContentTck}), and the store's identity,
 * durability and health ({@link StorageLifecycleTck}). They are not nested here: build tools run
 * every test a class inherits, but not always the tests nested in a class it inherits.
 *
 * <p>A module of its own, apart from the protocol suites of {@code sgm-tck}, so that each storage
 * plugin runs it from its own tests: {@code sgm-tck} runs its suites on the engine over the {@code
 * h2} storage, and the {@code h2} storage could not depend on it back.
 */
public abstract class StorageTck extends StorageLifecycleTck {}
