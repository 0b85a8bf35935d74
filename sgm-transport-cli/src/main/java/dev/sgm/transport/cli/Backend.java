package dev.sgm.transport.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import java.util.List;
import java.util.Map;

/**
 * Where the command's operations go: the engine in this process on the embedded store, or a server
 * named by {@code --remote}. Either way an operation is its wire name and JSON.
 */
interface Backend extends SgmClient, AutoCloseable {
  @Override
  void close();

  /** The operations a profile adds, for backends that only learn the profiles from discovery. */
  Map<String, List<String>> PROFILE_OPERATIONS =
      Map.of(
          "history",
          List.of(
              "history.versions",
              "history.read",
              "history.restore",
              "history.undelete",
              "snapshots.create",
              "snapshots.list",
              "snapshots.retrieve",
              "snapshots.restore"),
          "code",
          List.of("code.symbols", "code.references_to", "code.diffs_touching"),
          "collaboration",
          List.of(
              "tasks.claim",
              "tasks.transition",
              "tasks.ready",
              "rules.active",
              "status.current",
              "handoffs.accept",
              "handoffs.complete",
              "handoffs.resume"));

  /** The operations this backend offers: the core ones, then those of each advertised profile. */
  default List<String> operations() {
    List<String> operations =
        new java.util.ArrayList<>(
            List.of(
                "discover", "store", "store_batch", "read", "retrieve", "delete", "put_content"));
    for (JsonNode capability : call("discover", dev.sgm.api.Json.object()).path("capabilities")) {
      operations.addAll(PROFILE_OPERATIONS.getOrDefault(capability.asText(), List.of()));
    }
    return operations;
  }

  /**
   * Checks a bulk import's {@code --batch-size}: from 1 to {@link BatchStoreRequest#MAX_RECORDS},
   * the most one store_batch takes, so a wrong size is named before anything is read.
   */
  static void checkBatchSize(int batchSize) {
    if (batchSize < 1 || batchSize > BatchStoreRequest.MAX_RECORDS) {
      throw SgmException.invalidRequest(
          "--batch-size", "must be between 1 and " + BatchStoreRequest.MAX_RECORDS);
    }
  }

  /**
   * Stores {@code records} in one atomic batch; a failure names the record by {@code before}, a
   * phrase such as "after record 500: ", since a field path alone does not say which batch.
   */
  default void storeBatch(ArrayNode records, String before) {
    ObjectNode request = dev.sgm.api.Json.object();
    request.set("records", records);
    try {
      call("store_batch", request);
    } catch (SgmException e) {
      throw e.withFieldPrefix(before);
    }
  }

  /**
   * The engine on the data directory, shared with the other processes that open it (see {@link
   * SharedDirectory}); records it stores get {@code provenance.origin} {@code cli}.
   */
  static Backend embedded(Config config) {
    SharedDirectory shared = SharedDirectory.open(config, "cli");
    return new Backend() {
      @Override
      public JsonNode call(String operation, JsonNode request) {
        return shared.call(operation, request);
      }

      @Override
      public List<String> operations() {
        return shared.operations();
      }

      @Override
      public void close() {
        shared.close();
      }
    };
  }

  /** A server over HTTP ({@code http://host:port}) or gRPC ({@code grpc://host:port}). */
  static Backend remote(String url) {
    if (url.startsWith("grpc://")) {
      dev.sgm.transport.grpc.SgmGrpcClient client;
      try {
        client = new dev.sgm.transport.grpc.SgmGrpcClient(url);
      } catch (NoClassDefFoundError e) {
        throw missing("gRPC", "sgm-transport-grpc");
      }
      return of(client, client::close);
    }
    if (!url.startsWith("http://") && !url.startsWith("https://")) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "--remote: '" + url + "' is not an http://, https:// or grpc:// URL");
    }
    SgmClient client;
    try {
      client = new dev.sgm.transport.http.SgmHttpClient(url);
    } catch (NoClassDefFoundError e) {
      throw missing("HTTP", "sgm-transport-http");
    }
    return of(client, () -> {});
  }

  private static Backend of(SgmClient client, Runnable close) {
    return new Backend() {
      @Override
      public JsonNode call(String operation, JsonNode request) {
        return client.call(operation, request);
      }

      @Override
      public void close() {
        close.run();
      }
    };
  }

  private static SgmException missing(String protocol, String artifact) {
    return new SgmException(
        ErrorCode.UNSUPPORTED_CAPABILITY,
        "--remote needs the "
            + protocol
            + " client ("
            + artifact
            + "), which is not on the module path");
  }
}
