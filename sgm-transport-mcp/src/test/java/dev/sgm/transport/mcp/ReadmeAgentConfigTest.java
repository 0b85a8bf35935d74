package dev.sgm.transport.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The README's copy-paste agent configurations are valid JSON that launch or reach SGM's MCP
 * server.
 */
class ReadmeAgentConfigTest {
  @Test
  void theAgentConfigurationsParseAndPointAtSgm() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    String section =
        readme.substring(
            readme.indexOf("<!-- agent-configs -->"), readme.indexOf("<!-- /agent-configs -->"));
    List<JsonNode> configs = new ArrayList<>();
    String[] parts = section.split("```json");
    for (int i = 1; i < parts.length; i++) {
      configs.add(Json.parse(parts[i].substring(0, parts[i].indexOf("```"))));
    }
    assertEquals(3, configs.size(), "Claude Code, Cursor and VS Code");
    for (JsonNode config : configs) {
      JsonNode servers =
          config.has("mcpServers") ? config.get("mcpServers") : config.get("servers");
      JsonNode sgm = servers.path("sgm");
      boolean stdio =
          sgm.path("args").toString().contains("\"mcp\"")
              && sgm.path("command").asText().endsWith("sgm");
      boolean http = sgm.path("url").asText().startsWith("http://127.0.0.1:7412/mcp?project=");
      assertTrue(stdio || http, config.toString());
    }
  }

  @Test
  void theTeamConfigurationsSendTheBearerHeader() throws Exception {
    String readme = Files.readString(Path.of("..", "docs", "team-server.md"));
    String section =
        readme.substring(
            readme.indexOf("<!-- team-agent-configs -->"),
            readme.indexOf("<!-- /team-agent-configs -->"));
    String[] parts = section.split("```json");
    assertEquals(4, parts.length, "Claude Code, Cursor and VS Code");
    for (int i = 1; i < parts.length; i++) {
      JsonNode config = Json.parse(parts[i].substring(0, parts[i].indexOf("```")));
      JsonNode servers =
          config.has("mcpServers") ? config.get("mcpServers") : config.get("servers");
      JsonNode sgm = servers.path("sgm");
      assertTrue(
          sgm.path("url").asText().startsWith("http://127.0.0.1:7412/mcp?project="),
          config.toString());
      assertTrue(
          sgm.path("headers").path("Authorization").asText().startsWith("Bearer ${"),
          config.toString());
    }
  }
}
