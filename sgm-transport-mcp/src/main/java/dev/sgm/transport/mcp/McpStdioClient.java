package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client of an MCP server on standard input and output, such as {@code sgm mcp}, launched as a
 * child process: {@code call("store", request)} is a {@code tools/call} of {@code sgm_store}, an
 * {@code isError} result becomes the {@link SgmException} it carries, and the process exiting fails
 * the calls waiting on it with {@code unavailable}. Calls may come from several threads. It speaks
 * MCP 2026-07-28 (every request carries its version in {@code _meta}); {@link #legacy} begins a
 * 2025 session with {@code initialize} instead.
 */
public final class McpStdioClient implements SgmClient, AutoCloseable {
  private static final long TIMEOUT_SECONDS = 60;

  private final Process process;
  private final OutputStream in;
  private final AtomicLong ids = new AtomicLong();
  private final Map<Long, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private volatile boolean ended;
  private final boolean modern;

  /** Starts {@code command} (its standard error as the builder says) and discovers the server. */
  public McpStdioClient(ProcessBuilder command) throws IOException {
    this(command, true);
  }

  /** Starts {@code command} and begins a 2025 session with {@code initialize}. */
  public static McpStdioClient legacy(ProcessBuilder command) throws IOException {
    return new McpStdioClient(command, false);
  }

  private McpStdioClient(ProcessBuilder command, boolean modern) throws IOException {
    this.modern = modern;
    this.process = command.start();
    this.in = process.getOutputStream();
    Thread.ofPlatform().daemon().name("mcp-stdio-reader").start(this::readResponses);
    if (modern) {
      rpc("server/discover", Json.object());
      return;
    }
    ObjectNode params = Json.object();
    params.put("protocolVersion", McpProtocol.LEGACY.get(0));
    params.putObject("capabilities");
    params.putObject("clientInfo").put("name", "sgm-java-mcp-stdio-client").put("version", "1");
    rpc("initialize", params);
    send(Json.object().put("jsonrpc", "2.0").put("method", "notifications/initialized"));
  }

  /** The server's process, to watch or to stop. */
  public Process process() {
    return process;
  }

  private void readResponses() {
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        JsonNode message;
        try {
          message = Json.parse(line);
        } catch (SgmException e) {
          continue; // not a message of ours
        }
        CompletableFuture<JsonNode> waiting = pending.remove(message.path("id").asLong(-1));
        if (waiting != null) {
          waiting.complete(message);
        }
      }
    } catch (IOException e) {
      // The process went away; the calls waiting on it fail below.
    } finally {
      ended = true;
      SgmException gone = new SgmException(ErrorCode.UNAVAILABLE, "the MCP server process exited");
      pending.values().forEach(waiting -> waiting.completeExceptionally(gone));
      pending.clear();
    }
  }

  private void send(JsonNode message) {
    byte[] line = (Json.write(message) + "\n").getBytes(StandardCharsets.UTF_8);
    try {
      synchronized (in) {
        in.write(line);
        in.flush();
      }
    } catch (IOException e) {
      throw new SgmException(ErrorCode.UNAVAILABLE, "the MCP server process exited");
    }
  }

  /** Any MCP request, returning its result; a JSON-RPC error is {@code invalid_request}. */
  public JsonNode rpc(String method, JsonNode params) {
    long id = ids.incrementAndGet();
    CompletableFuture<JsonNode> response = new CompletableFuture<>();
    pending.put(id, response);
    if (ended) {
      pending.remove(id);
      throw new SgmException(ErrorCode.UNAVAILABLE, "the MCP server process exited");
    }
    ObjectNode request = Json.object();
    request.put("jsonrpc", "2.0");
    request.put("id", id);
    request.put("method", method);
    ObjectNode withMeta = params.isObject() ? ((ObjectNode) params).deepCopy() : Json.object();
    if (modern) {
      McpProtocol.envelopeOf(withMeta, "sgm-java-mcp-stdio-client");
    }
    request.set("params", withMeta);
    send(request);
    JsonNode body;
    try {
      body = response.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof SgmException sgm
          ? sgm
          : new SgmException(ErrorCode.UNAVAILABLE, String.valueOf(e.getCause()));
    } catch (TimeoutException e) {
      pending.remove(id);
      throw new SgmException(
          ErrorCode.UNAVAILABLE, method + " had no answer in " + TIMEOUT_SECONDS + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted");
    }
    if (body.has("error")) {
      throw McpProtocol.failure(body.path("error"));
    }
    return body.path("result");
  }

  @Override
  public JsonNode call(String operation, JsonNode request) {
    ObjectNode params = Json.object();
    params.put("name", McpTools.toolName(operation));
    params.set("arguments", request);
    JsonNode result = rpc("tools/call", params);
    if (result.path("isError").asBoolean(false)) {
      throw SgmException.fromJson(result.path("structuredContent"));
    }
    return result.path("structuredContent");
  }

  /** Ends the session: closes the server's input, which stops it, and waits for it to exit. */
  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      // Gone already.
    }
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
