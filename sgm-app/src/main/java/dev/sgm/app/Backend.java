package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.OperationDescriptor;
import dev.sgm.api.Operations;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.ClientProvider;
import dev.sgm.api.spi.Config;
import java.util.List;
import java.util.Optional;

/**
 * Where the command's operations go: the engine in this process on the embedded store, or a server
 * named by {@code --remote}. Either way an operation is its wire name and JSON.
 */
interface Backend extends SgmClient, AutoCloseable {
  @Override
  void close();

  /** The operations this backend offers, as its discovery describes them. */
  default List<OperationDescriptor> describeOperations() {
    return OperationDescriptor.listedIn(call(Operations.DISCOVER, Json.object()));
  }

  /**
   * Checks a bulk import's {@code --batch-size}: from 1 to {@link BatchStoreRequest#MAX_RECORDS},
   * the most one batch store takes, so a wrong size is named before anything is read.
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
    ObjectNode request = Json.object();
    request.set("records", records);
    try {
      call(Operations.STORE_BATCH, request);
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
      public Optional<ChangeStream> watch(ChangesRequest request) {
        return shared.watch(request);
      }

      @Override
      public void close() {
        shared.close();
      }
    };
  }

  /**
   * A server at {@code url}, through the client its scheme names ({@code http://host:port}, {@code
   * grpc://host:port}, {@code mcp+http://host:port/mcp}, ...), from the transports on the module
   * path.
   */
  static Backend remote(String url) {
    return remote(url, null);
  }

  /** As {@link #remote(String)}, presenting {@code token} (null: none) as the bearer token. */
  static Backend remote(String url, String token) {
    try {
      ClientProvider.Remote client = ClientProvider.connect(url, token);
      return of(client, client::close);
    } catch (SgmException e) {
      throw e.code() == ErrorCode.UNSUPPORTED_CAPABILITY
          ? new SgmException(e.code(), "--remote: " + e.getMessage())
          : e;
    }
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
}
