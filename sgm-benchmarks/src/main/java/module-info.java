/**
 * Load harnesses for SGM that print ratios: the engine against raw JDBC on the same H2 settings,
 * the HTTP transport against a trivial handler on the same server configuration, stores with and
 * without an embedder, what the embedder plugin costs, a data directory shared between processes
 * against one held in process; and recall on LoCoMo and retrieve latency.
 */
module dev.sgm.bench {
  requires dev.sgm.core;
  requires dev.sgm.search;
  requires dev.sgm.transport.http;
  requires dev.sgm.transport.grpc;
  requires dev.sgm.transport.mcp;
  requires io.grpc.stub;
  requires io.grpc.services;
  requires io.grpc.netty.shaded;
  requires java.sql;
  requires com.h2database;

  // Lists the embedder plugins present, to turn them off by name for the comparison.
  uses dev.sgm.api.spi.EmbedderProvider;

  // The retrieve benchmark's stand-in for a model at a million records; off unless named.
  provides dev.sgm.api.spi.EmbedderProvider with
      dev.sgm.bench.SentenceVectors;
}
