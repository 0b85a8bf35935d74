// Drives a server with authentication on through the official MCP TypeScript SDK over Streamable
// HTTP: without a token the session is refused; with `Authorization: Bearer` it works and whoami
// names the token's principal. Usage: node mcp-auth-client.mjs HTTP_ENDPOINT TOKEN
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [endpoint, token] = process.argv.slice(2);
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

let refused = null;
try {
  const anonymous = new Client({ name: "sgm-node-anonymous", version: "1.0.0" });
  await anonymous.connect(new StreamableHTTPClientTransport(new URL(`${endpoint}?project=node-auth`)));
  await anonymous.close();
} catch (e) {
  refused = e;
}
check("without a token the session is refused", refused !== null && (refused.code === 401 || String(refused).includes("needs a token")), String(refused));

const client = new Client({ name: "sgm-node-auth", version: "1.0.0" });
await client.connect(
  new StreamableHTTPClientTransport(new URL(`${endpoint}?project=node-auth&agent=node`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }),
);
const whoami = await client.callTool({ name: "sgm_whoami", arguments: {} });
check("whoami names the bootstrap principal", !whoami.isError && whoami.structuredContent.principal === "bootstrap", whoami);
const stored = await client.callTool({ name: "sgm_store", arguments: { content: "with a token" } });
check("a tool call with the header works", !stored.isError && stored.structuredContent.record.provenance.principal === "bootstrap", stored);
await client.close();

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
