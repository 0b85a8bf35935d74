// Three agents' `sgm mcp` stdio sessions (the official MCP TypeScript SDK) and the command line, all at
// once on one data directory: every write is visible to every other process as soon as it is
// acknowledged. Usage: node shared-memory.mjs SGM_BIN DATA_DIR
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFile } from "node:child_process";

const [sgm, data] = process.argv.slice(2);
const project = "shared";
const perAgent = 8;
const fromShell = 3;
let passed = 0;
let failed = 0;
function check(name, condition, detail) {
  if (condition) {
    passed++;
  } else {
    failed++;
    console.log(`FAIL ${name}: ${JSON.stringify(detail).slice(0, 600)}`);
  }
}

function run(...args) {
  return new Promise((resolve) => {
    execFile(sgm, ["--data", data, ...args], { env: process.env }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }),
    );
  });
}

async function session(agent) {
  const client = new Client({ name: agent, version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: sgm,
      args: ["mcp", "--data", data, "--project", project, "--agent", agent],
      stderr: "inherit",
    }),
  );
  return { agent, client };
}

const agents = await Promise.all(["agent-1", "agent-2", "agent-3"].map(session));

async function seenByEveryone(id, writer) {
  for (const other of agents) {
    const read = await other.client.callTool({ name: "sgm_read", arguments: { id } });
    check(`${other.agent} reads ${id} right after ${writer} stored it`, !read.isError && read.structuredContent.record.id === id, read);
  }
}

async function agentWrites({ agent, client }) {
  for (let i = 0; i < perAgent; i++) {
    const id = `${agent}-${i}`;
    const stored = await client.callTool({ name: "sgm_store", arguments: { id, content: `${agent} wrote number ${i}`, tags: ["shared"] } });
    check(`${agent} stores ${id}`, !stored.isError && stored.structuredContent.record.provenance.origin === "mcp", stored);
    await seenByEveryone(id, agent);
    if (i % 4 === 3) {
      const shell = await run("retrieve", "--scope", `project=${project}`, "--limit", "100");
      const ids = shell.code === 0 ? JSON.parse(shell.stdout).records.map((r) => r.id) : [];
      check(`sgm retrieve sees ${id} right after ${agent} stored it`, ids.includes(id), shell);
    }
  }
}

async function shellWrites() {
  for (let i = 0; i < fromShell; i++) {
    const id = `shell-${i}`;
    const remembered = await run("remember", `remembered from the shell, number ${i}`, "--project", project, "--id", id, "--agent", "shell");
    check(`sgm remember ${id} succeeds`, remembered.code === 0, remembered);
    await seenByEveryone(id, "sgm remember");
    const found = await run("retrieve", "--scope", `project=${project}`, "--text", "remembered");
    const ids = found.code === 0 ? JSON.parse(found.stdout).records.map((r) => r.id) : [];
    check(`sgm retrieve finds ${id} by its words`, ids.includes(id), found);
  }
}

await Promise.all([...agents.map(agentWrites), shellWrites()]);

const all = await agents[0].client.callTool({ name: "sgm_retrieve", arguments: { limit: 100 } });
check(
  "every write is in the shared memory once",
  !all.isError && all.structuredContent.total === agents.length * perAgent + fromShell,
  all.structuredContent,
);
for (const record of all.structuredContent.records ?? []) {
  const expected = record.id.startsWith("shell-") ? { agent: "shell", origin: "cli" } : { agent: record.id.replace(/-\d+$/, ""), origin: "mcp" };
  check(`${record.id} keeps who wrote it and through what`, record.provenance.agent === expected.agent && record.provenance.origin === expected.origin, record.provenance);
}
await Promise.all(agents.map(({ client }) => client.close()));

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
