// Drives sgm with the official MCP TypeScript client v2 (@modelcontextprotocol/client) in each of
// its version modes: 'legacy' (the 2025 handshake), 'auto' (server/discover, falling back) and
// pinned to 2026-07-28, over stdio (spawning `sgm mcp` on a shared data directory) and over
// Streamable HTTP. In each: the era agreed, the server's instructions, tools that describe
// themselves (output schemas, annotations, titles), stores and recalls whose structured results
// the client validates against those schemas, a resource read, the brief (a prompt and a
// resource), and a subscription (subscriptions/listen in 2026, resources/subscribe in 2025) that
// sees another agent's store.
// Usage: node mcp-client-v2.mjs SGM_BIN HTTP_ENDPOINT DATA_DIR
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [sgm, endpoint, data] = process.argv.slice(2);
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

const MODES = { legacy: "legacy", auto: "auto", pin: { pin: "2026-07-28" } };

function client(mode, agent) {
  const c = new Client(
    { name: `sgm-v2-${agent}`, version: "1.0.0" },
    { capabilities: {}, versionNegotiation: { mode: MODES[mode], probe: { timeoutMs: 30_000 } } },
  );
  c.updated = [];
  c.setNotificationHandler("notifications/resources/updated", (n) => c.updated.push(n.params.uri));
  return c;
}

function transport(kind, project, agent) {
  if (kind === "stdio") {
    return new StdioClientTransport({
      command: sgm,
      args: ["mcp", "--data", data, "--project", project, "--agent", agent],
      env: process.env,
      stderr: "ignore",
    });
  }
  return new StreamableHTTPClientTransport(new URL(`${endpoint}?project=${project}&agent=${agent}`));
}

async function until(condition, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return condition();
}

function scopeUri(project) {
  return "sgm://scope/" + encodeURIComponent(`project=${project}`);
}

async function run(mode, kind) {
  const tag = `${kind} ${mode}`;
  const project = `v2-${kind}-${mode}`;
  const a = client(mode, "agent-a");
  await a.connect(transport(kind, project, "agent-a"));
  const modern = mode !== "legacy";
  check(`${tag}: era`, a.getProtocolEra() === (modern ? "modern" : "legacy"), a.getProtocolEra());
  check(
    `${tag}: version`,
    a.getNegotiatedProtocolVersion() === (modern ? "2026-07-28" : "2025-11-25"),
    a.getNegotiatedProtocolVersion(),
  );
  check(`${tag}: instructions say when to recall and to store`, /recall/.test(a.getInstructions()) && /remember/.test(a.getInstructions()), a.getInstructions());

  const { tools } = await a.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  check(`${tag}: tools are listed`, ["sgm_store", "sgm_retrieve", "sgm_read", "sgm_handoffs_resume"].every((n) => byName[n]), Object.keys(byName));
  check(`${tag}: every tool has an output schema, a title and annotations`, tools.every((t) => t.outputSchema && t.title && t.annotations), tools.filter((t) => !(t.outputSchema && t.title && t.annotations)).map((t) => t.name));
  check(`${tag}: recall is read-only`, byName.sgm_retrieve.annotations.readOnlyHint === true, byName.sgm_retrieve.annotations);
  check(`${tag}: forgetting is destructive`, byName.sgm_delete.annotations.destructiveHint === true && byName.sgm_delete.annotations.readOnlyHint === false, byName.sgm_delete.annotations);
  check(`${tag}: plain words find the memory tools`, /remember/i.test(byName.sgm_store.description + byName.sgm_store.title) && /recall/i.test(byName.sgm_retrieve.description + byName.sgm_retrieve.title), [byName.sgm_store.title, byName.sgm_retrieve.title]);

  // The subscription first, so that the other agent's store comes after it.
  let subscription = null;
  if (modern) {
    subscription = await a.listen({ resourceSubscriptions: [scopeUri(project)] });
    check(`${tag}: listen is acknowledged`, subscription.honoredFilter?.resourceSubscriptions?.[0] === scopeUri(project), subscription.honoredFilter);
  } else {
    await a.subscribeResource({ uri: scopeUri(project) });
  }

  // The client validates each structured result against the tool's output schema.
  const stored = await a.callTool({ name: "sgm_store", arguments: { id: "note-1", content: `the build of ${project} uses Maven`, tags: ["build"] } });
  check(`${tag}: store with just content`, !stored.isError && stored.structuredContent.record.scope.project === project && stored.structuredContent.record.provenance.agent === "agent-a", stored);
  const found = await a.callTool({ name: "sgm_retrieve", arguments: { text: "maven build", mode: "text" } });
  check(`${tag}: recall finds it`, found.structuredContent.total >= 1 && found.structuredContent.records[0].id === "note-1", found.structuredContent);
  const compact = await a.callTool({ name: "sgm_retrieve", arguments: { text: "maven", mode: "text", compact: true } });
  check(`${tag}: a compact recall validates too`, !compact.isError && compact.structuredContent.records[0].first_line !== undefined, compact.structuredContent);
  for (const [name, args] of [
    ["sgm_whoami", {}],
    ["sgm_rules_active", {}],
    ["sgm_status_current", {}],
    ["sgm_tasks_ready", {}],
    ["sgm_scopes", {}],
    ["sgm_history_versions", { id: "note-1" }],
  ]) {
    const answer = await a.callTool({ name, arguments: args });
    check(`${tag}: ${name} answers within its output schema`, !answer.isError, answer);
  }
  const missing = await a.callTool({ name: "sgm_read", arguments: { id: "no-such-note" } });
  check(`${tag}: an error is an isError result with the error object`, missing.isError && missing.structuredContent.error.code === "not_found", missing);
  const uri = `sgm://record/${encodeURIComponent(`project=${project}`)}/note-1`;
  const resource = await a.readResource({ uri });
  check(`${tag}: read a record as a resource`, JSON.parse(resource.contents[0].text).content.includes("Maven"), resource);

  // The brief: a prompt with budget and query arguments, and a resource of the project's.
  const prompts = await a.listPrompts();
  const context = prompts.prompts.find((p) => p.name === "sgm_context");
  check(`${tag}: the brief is a prompt`, context && context.arguments.some((x) => x.name === "budget"), prompts);
  const brief = await a.getPrompt({ name: "sgm_context", arguments: { budget: "400", query: "maven" } });
  const briefText = brief.messages[0].content.text;
  check(`${tag}: the prompt gives the brief of the session's project`, briefText.startsWith(`# SGM brief · project ${project}`) && briefText.includes("Maven") && Buffer.byteLength(briefText) <= 1200, briefText);
  const briefResource = await a.readResource({ uri: `sgm://context/${encodeURIComponent(project)}` });
  check(`${tag}: the brief is a resource`, briefResource.contents[0].mimeType === "text/markdown" && briefResource.contents[0].text.includes("Maven"), briefResource);

  // Another agent stores in the same project; the subscription sees it.
  const b = client(mode, "agent-b");
  await b.connect(transport(kind, project, "agent-b"));
  await b.listTools();
  const other = await b.callTool({ name: "sgm_store", arguments: { id: "from-b", content: "agent b was here" } });
  check(`${tag}: the other agent stores`, !other.isError && other.structuredContent.record.provenance.agent === "agent-b", other);
  const seen = await until(() => a.updated.some((u) => u.endsWith("/from-b")), 30_000);
  check(`${tag}: the subscription sees the other agent's store`, seen, a.updated);
  if (subscription) {
    await subscription.close();
  }
  await b.close();
  await a.close();
}

for (const kind of ["stdio", "http"]) {
  for (const mode of ["legacy", "auto", "pin"]) {
    try {
      await run(mode, kind);
    } catch (e) {
      check(`${kind} ${mode}: ran to the end`, false, `${e?.constructor?.name} ${e?.code ?? ""} ${e?.message ?? e}`);
    }
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
