// Drives a profile plugin's operation with the official MCP TypeScript SDK, as an agent would find it:
// over Streamable HTTP on the server, and over stdio through `sgm mcp --remote`, which learns the tools
// from the server's discovery. Usage: node plugin-client.mjs SGM_BIN MCP_ENDPOINT HTTP_URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [sgm, endpoint, http] = process.argv.slice(2);
let passed = 0;
let failed = 0;
function check(name, condition, detail) {
  if (condition) {
    passed++;
    console.log(`PASS ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}: ${JSON.stringify(detail)}`);
  }
}

async function exercise(label, client) {
  const tools = await client.listTools();
  const greet = tools.tools.find((t) => t.name === "sgm_example_greet");
  check(`${label}: the plugin's operation is a tool`, greet !== undefined, tools.tools.map((t) => t.name));
  check(`${label}: with the plugin's description`, greet?.description === "Greets a name and counts the greetings kept in a scope.", greet);
  check(`${label}: and its request schema`, greet?.inputSchema?.properties?.name?.type === "string", greet?.inputSchema);
  const answer = await client.callTool({ name: "sgm_example_greet", arguments: { name: "Ada" } });
  check(`${label}: the tool works in the session's scope`, !answer.isError && answer.structuredContent.greeting === "Hello, Ada!", answer);
  return answer;
}

const overHttp = new Client({ name: "sgm-plugin-http", version: "1.0.0" });
await overHttp.connect(new StreamableHTTPClientTransport(new URL(`${endpoint}?project=plugin-mcp&agent=node`)));
await overHttp.callTool({ name: "sgm_store", arguments: { record: { id: "g1", type: "greeting", scope: { project: "plugin-mcp" }, provenance: { agent: "node" }, data: { text: "hi" } } } });
const counted = await exercise("http", overHttp);
check("http: it sees the greeting kept in the scope", counted.structuredContent.greetings_kept === 1, counted);
await overHttp.close();

const overStdio = new Client({ name: "sgm-plugin-stdio", version: "1.0.0" });
await overStdio.connect(
  new StdioClientTransport({ command: sgm, args: ["mcp", "--remote", http, "--project", "plugin-mcp", "--agent", "node"], stderr: "ignore" }),
);
await exercise("stdio --remote", overStdio);
await overStdio.close();

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
