/**
 * The SGM engine: validation, versions, scope isolation, retrieval and discovery, assembled with
 * Dagger from the profile, transport, storage and embedder plugins found on the module path. The
 * storage is a plugin too ({@code storage}; the embedded H2 one by default).
 */
module dev.sgm.core {
  requires transitive dev.sgm.api;
  requires dev.sgm.search;
  requires dagger;
  requires jakarta.inject;
  // The System.Logger backend, whose one-line format Main sets.
  requires java.logging;

  exports dev.sgm.core;
}
