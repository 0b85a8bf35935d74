/**
 * The storage conformance suite: abstract JUnit 5 suites over the storage SPI ({@link
 * dev.sgm.api.spi.Storage}) that every storage plugin extends from its own tests, {@link
 * dev.sgm.tck.storage.StorageTck} first. For storage implementers, from Maven; not shipped with the
 * server.
 */
module dev.sgm.tck.storage {
  requires transitive dev.sgm.api;
  requires transitive org.junit.jupiter.api;

  exports dev.sgm.tck.storage;

  opens dev.sgm.tck.storage to
      org.junit.platform.commons;
}
