package dev.sgm.transport.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The official MCP TypeScript SDK subscribes to a scope and to a record over Streamable HTTP and
 * receives {@code notifications/resources/updated} when another session stores (the npm packages
 * are those of the distribution's tests: {@code npm ci --prefix sgm-distribution/src/test/node}).
 */
class McpSubscriptionTest {
  private static final Path NODE_DIR = Path.of("..", "sgm-distribution", "src", "test", "node");

  @Test
  void theSdkIsNotifiedOfAnotherAgentsStore() throws Exception {
    assumeTrue(
        Files.isDirectory(NODE_DIR.resolve("node_modules/@modelcontextprotocol/sdk")),
        "the MCP SDK is not installed (npm ci --prefix sgm-distribution/src/test/node)");
    try (McpServers.Running server = McpServers.start("watch.heartbeat-ms", "200")) {
      Process node =
          new ProcessBuilder("node", "mcp-subscribe.mjs", server.endpoint())
              .directory(NODE_DIR.toFile())
              .redirectErrorStream(true)
              .start();
      String output = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      boolean ended = node.waitFor(60, TimeUnit.SECONDS);
      System.out.println(output);
      assertEquals(true, ended, "the client finished");
      assertEquals(0, node.exitValue(), output);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (server.transport().openSubscriptions() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertEquals(0, server.transport().openSubscriptions(), "closed sessions free them");
    }
  }
}
