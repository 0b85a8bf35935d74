/**
 * The SGM engine: validation, versions, scope isolation, retrieval and discovery, assembled with
 * Dagger from the profile, transport and storage plugins found on the module path, over the
 * embedded H2 store by default.
 */
module dev.sgm.core {
  requires transitive dev.sgm.api;
  requires dev.sgm.search;
  requires java.sql;
  requires com.h2database;
  requires dagger;
  requires jakarta.inject;
  // The System.Logger backend, whose one-line format Main sets.
  requires java.logging;

  exports dev.sgm.core;

  uses dev.sgm.api.spi.ProfileProvider;
  uses dev.sgm.api.spi.TransportProvider;
  uses dev.sgm.api.spi.StorageProvider;
  uses dev.sgm.api.spi.EmbedderProvider;

  provides dev.sgm.api.spi.StorageProvider with
      dev.sgm.core.H2StorageProvider;
}
