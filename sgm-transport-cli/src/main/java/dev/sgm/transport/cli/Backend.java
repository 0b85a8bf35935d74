package dev.sgm.transport.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.core.SgmRuntime;

/**
 * Where the command's operations go: the engine in this process on the embedded store, or a server
 * named by {@code --remote}. Either way an operation is its wire name and JSON.
 */
interface Backend extends SgmClient, AutoCloseable {
  @Override
  void close();

  /** The engine in this process; records it stores get {@code provenance.origin} {@code cli}. */
  static Backend embedded(Config config) {
    SgmRuntime runtime = SgmRuntime.open(config);
    Caller caller = Caller.anonymous("cli");
    return new Backend() {
      @Override
      public JsonNode call(String operation, JsonNode request) {
        return runtime.service().invoke(caller, operation, request);
      }

      @Override
      public void close() {
        runtime.close();
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
