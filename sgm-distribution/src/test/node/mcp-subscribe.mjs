// The official MCP TypeScript SDK subscribes to sgm resources over Streamable HTTP and receives
// notifications/resources/updated when another agent (another session) stores a record.
// Usage: node mcp-subscribe.mjs HTTP_ENDPOINT
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [endpoint] = process.argv.slice(2);
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

const project = "node-sub-" + Math.random().toString(36).slice(2, 10);
const watcher = new Client({ name: "sgm-node-watcher", version: "1.0.0" });
const watcherTransport = new StreamableHTTPClientTransport(new URL(`${endpoint}?project=${project}&agent=watcher`));
await watcher.connect(watcherTransport);
const updates = [];
let wake = () => {};
watcher.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
  updates.push(notification.params.uri);
  wake();
});
check("the server offers resource subscriptions", watcher.getServerCapabilities()?.resources?.subscribe === true,
  watcher.getServerCapabilities());

const writer = new Client({ name: "sgm-node-writer", version: "1.0.0" });
const writerTransport = new StreamableHTTPClientTransport(new URL(`${endpoint}?project=${project}&agent=writer`));
await writer.connect(writerTransport);

async function waitFor(predicate, millis) {
  const deadline = Date.now() + millis;
  while (!predicate() && Date.now() < deadline) {
    await new Promise((resolve) => {
      wake = resolve;
      setTimeout(resolve, 100);
    });
  }
  return predicate();
}

const scopeUri = `sgm://scope/${encodeURIComponent(`project=${project}`)}`;
await watcher.subscribeResource({ uri: scopeUri });
// The notification stream is a GET the SDK opens after initialisation; give it a moment.
await new Promise((resolve) => setTimeout(resolve, 500));
await writer.callTool({ name: "sgm_store", arguments: { id: "decided", content: "we keep H2" } });
const recordUri = `sgm://record/${encodeURIComponent(`project=${project}`)}/decided`;
check("a store by another agent is notified on the scope subscription",
  await waitFor(() => updates.includes(recordUri), 10000), updates);
const read = await watcher.readResource({ uri: recordUri });
check("the notified URI reads as the record", JSON.parse(read.contents[0].text).content === "we keep H2", read);

await watcher.unsubscribeResource({ uri: scopeUri });
updates.length = 0;
await writer.callTool({ name: "sgm_store", arguments: { id: "later", content: "after unsubscribing" } });
await new Promise((resolve) => setTimeout(resolve, 1000));
check("after unsubscribe nothing more is notified", updates.length === 0, updates);

await watcher.subscribeResource({ uri: recordUri });
await writer.callTool({ name: "sgm_store", arguments: { id: "other", content: "not the one watched" } });
await writer.callTool({ name: "sgm_store", arguments: { id: "decided", content: "we keep H2, and add a cache" } });
check("a record subscription is notified of that record only",
  await waitFor(() => updates.includes(recordUri), 10000) && updates.every((u) => u === recordUri), updates);

// Ending the sessions frees their subscriptions on the server.
await watcherTransport.terminateSession();
await writerTransport.terminateSession();
await watcher.close();
await writer.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
