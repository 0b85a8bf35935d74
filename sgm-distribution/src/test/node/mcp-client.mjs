// Drives sgm with the official MCP TypeScript SDK: over stdio (spawning `sgm mcp`) and over
// Streamable HTTP (two sessions with different projects). Usage: node mcp-client.mjs SGM_BIN HTTP_ENDPOINT
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [sgm, endpoint] = process.argv.slice(2);
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

const stdio = new Client({ name: "sgm-node-test", version: "1.0.0" });
await stdio.connect(
  new StdioClientTransport({
    command: sgm,
    args: ["mcp", "--memory", "--project", "node-stdio", "--agent", "node-agent"],
    stderr: "ignore",
  }),
);
const tools = await stdio.listTools();
const names = tools.tools.map((t) => t.name);
check("stdio: tools are listed", ["sgm_store", "sgm_retrieve", "sgm_read", "sgm_delete"].every((n) => names.includes(n)), names);
const stored = await stdio.callTool({ name: "sgm_store", arguments: { id: "n1", content: "from node over stdio", tags: ["node"] } });
check("stdio: store with just content", !stored.isError && stored.structuredContent.record.scope.project === "node-stdio", stored);
const found = await stdio.callTool({ name: "sgm_retrieve", arguments: { text: "node", compact: true } });
check("stdio: retrieve finds it", found.structuredContent.total === 1 && found.structuredContent.records[0].id === "n1", found);
const read = await stdio.callTool({ name: "sgm_read", arguments: { id: "n1" } });
check("stdio: read", read.structuredContent.record.content === "from node over stdio", read);
const deleted = await stdio.callTool({ name: "sgm_delete", arguments: { id: "n1" } });
check("stdio: delete", deleted.structuredContent.deleted === true, deleted);
const missing = await stdio.callTool({ name: "sgm_read", arguments: { id: "n1" } });
check("stdio: an error is an isError result with the error object", missing.isError && missing.structuredContent.error.code === "not_found", missing);
await stdio.close();

async function session(project) {
  const client = new Client({ name: `sgm-node-${project}`, version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${endpoint}?project=${project}&agent=node`)));
  return client;
}
const a = await session("node-http-a");
const b = await session("node-http-b");
const httpTools = await a.listTools();
check("http: tools are listed", httpTools.tools.some((t) => t.name === "sgm_store"), httpTools);
await a.callTool({ name: "sgm_store", arguments: { content: "only project a knows this" } });
const seenByA = await a.callTool({ name: "sgm_retrieve", arguments: { text: "project" } });
const seenByB = await b.callTool({ name: "sgm_retrieve", arguments: { text: "project" } });
check("http: a session sees its own project's records", seenByA.structuredContent.total === 1, seenByA);
check("http: a session launched with another project does not see them", seenByB.structuredContent.total === 0, seenByB);
const invalid = await a.callTool({ name: "sgm_store", arguments: { record: { id: "x", type: "Not A Type" } } });
check("http: an invalid record is an isError result", invalid.isError && invalid.structuredContent.error.code === "invalid_record", invalid);
await a.close();
await b.close();

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
