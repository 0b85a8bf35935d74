package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What an MCP session fills in when a tool call leaves it out: the scope to work in and the agent
 * to record as the writer. Both may be absent, and then nothing is filled in.
 *
 * @param scope the default scope as a JSON object, or null
 * @param agent the default agent, or null
 */
public record McpDefaults(ObjectNode scope, String agent) {
  /** No defaults. */
  public static McpDefaults none() {
    return new McpDefaults(null, null);
  }
}
