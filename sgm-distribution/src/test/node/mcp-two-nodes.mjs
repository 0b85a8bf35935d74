// One MCP client v2 pinned to 2026-07-28, behind a proxy that sends each of its HTTP requests to the
// next of two sgm nodes in turn (no session affinity): every request succeeds, a record stored
// through one node is read through the other, and a subscription held open on one node sees a store
// made through the other. Usage: node mcp-two-nodes.mjs MCP_URL_A MCP_URL_B
import http from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const upstreams = process.argv.slice(2).map((u) => new URL(u));
let passed = 0;
let failed = 0;
function check(name, condition, detail) {
  if (condition) {
    passed++;
    console.log(`PASS ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}: ${JSON.stringify(detail)?.slice(0, 2000)}`);
  }
}

let turn = 0;
const served = upstreams.map(() => []);
const proxy = http.createServer((request, response) => {
  const index = turn++ % upstreams.length;
  const upstream = upstreams[index];
  const url = new URL(request.url, upstream);
  served[index].push(`${request.method} ${request.headers["mcp-method"] ?? "(notification)"}`);
  const forwarded = http.request(
    url,
    { method: request.method, headers: { ...request.headers, host: upstream.host } },
    (answer) => {
      response.writeHead(answer.statusCode, answer.headers);
      answer.pipe(response);
    },
  );
  forwarded.on("error", (e) => {
    response.writeHead(502);
    response.end(String(e));
  });
  request.pipe(forwarded);
});
await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
const endpoint = `http://127.0.0.1:${proxy.address().port}/mcp?project=two-nodes&agent=node-agent`;

async function until(condition, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return condition();
}

const client = new Client(
  { name: "sgm-two-nodes", version: "1.0.0" },
  { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } },
);
const updated = [];
client.setNotificationHandler("notifications/resources/updated", (n) => updated.push(n.params.uri));
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
  check("connects pinned to 2026-07-28", client.getNegotiatedProtocolVersion() === "2026-07-28", client.getNegotiatedProtocolVersion());
  const { tools } = await client.listTools();
  check("lists the tools", tools.some((t) => t.name === "sgm_store"), tools.length);

  const subscription = await client.listen({
    resourceSubscriptions: ["sgm://scope/" + encodeURIComponent("project=two-nodes")],
  });
  check("a listen is acknowledged", subscription.honoredFilter?.resourceSubscriptions?.length === 1, subscription.honoredFilter);

  let failures = [];
  for (let i = 0; i < 10; i++) {
    const stored = await client.callTool({ name: "sgm_store", arguments: { id: `n${i}`, content: `note ${i} about the nodes` } });
    if (stored.isError) failures.push(stored);
    const read = await client.callTool({ name: "sgm_read", arguments: { id: `n${i}` } });
    if (read.isError || read.structuredContent.record.content !== `note ${i} about the nodes`) failures.push(read);
  }
  check("each store is read back through the other node", failures.length === 0, failures);
  const found = await until(async () => {
    const r = await client.callTool({ name: "sgm_retrieve", arguments: { text: "nodes", mode: "text", limit: 50 } });
    return !r.isError && r.structuredContent.total === 10;
  }, 20_000);
  check("recall through either node finds all ten", found, null);
  const seen = await until(() => updated.filter((u) => /\/n\d$/.test(u)).length >= 10, 20_000);
  check("the listen held on one node sees stores made through the other", seen, updated);
  await subscription.close();
  await client.close();
} catch (e) {
  check("ran to the end", false, `${e?.constructor?.name} ${e?.code ?? ""} ${e?.message ?? e}`);
}
check("both nodes answered requests", served.every((s) => s.length >= 5), served.map((s) => s.length));
console.log(`requests per node: ${served.map((s) => s.length).join(", ")}`);
proxy.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
