/**
 * The SGM contract as Java types: records, scopes, queries, results, discovery, errors, the
 * operation interface every transport calls, and the SPIs through which profiles, transports and
 * storage plug in.
 */
module dev.sgm.api {
  requires transitive com.fasterxml.jackson.databind;

  exports dev.sgm.api;
  exports dev.sgm.api.spi;

  // Plugins is the one place plugins are found, so it declares every kind.
  uses dev.sgm.api.spi.ClientProvider;
  uses dev.sgm.api.spi.CommandProvider;
  uses dev.sgm.api.spi.ConformanceKit;
  uses dev.sgm.api.spi.EmbedderProvider;
  uses dev.sgm.api.spi.ProfileProvider;
  uses dev.sgm.api.spi.StdioServerProvider;
  uses dev.sgm.api.spi.StorageProvider;
  uses dev.sgm.api.spi.TransportProvider;
}
