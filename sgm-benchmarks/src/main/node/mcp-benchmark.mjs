// The same run as a user's agent, over MCP stdio with the official TypeScript SDK client, against
// `sgm mcp` and against mcp-memory-keeper (SQLite) on the same machine: single stores of agent notes,
// then one-word searches for words that occur in them. Prints stores/s and searches/s, p50 and p99,
// and the ratios. Usage:
//   node mcp-benchmark.mjs --sgm PATH/bin/sgm [--stores 10000] [--searches 2000] [--seed 42] [--limit 10]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdtempSync, rmSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

const options = { stores: 10000, searches: 2000, seed: 42, limit: 10, sgm: null };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const name = argv[i].replace(/^--/, "");
  if (!(name in options) || i + 1 >= argv.length) {
    console.error(`unknown or incomplete argument ${argv[i]}; usage: --sgm PATH [--stores N] [--searches N] [--seed S] [--limit N]`);
    process.exit(2);
  }
  options[name] = name === "sgm" ? argv[++i] : Number(argv[++i]);
}
if (!options.sgm) {
  console.error("--sgm PATH (the distribution's bin/sgm) is required");
  process.exit(2);
}

/** mulberry32: a small seeded generator, so that every run stores and asks the same texts. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const subjects = [
  "the connection pool", "HikariCP", "the login flow", "the build cache", "the user_id migration",
  "the payment service", "the search index", "the CI pipeline", "the retry logic", "the rate limiter",
  "the session store", "the nightly export job", "the config loader", "the gRPC client", "the release branch",
  "the orders schema", "the cache layer", "the token refresh", "the websocket gateway", "the billing report",
  "the onboarding wizard", "the audit log", "the feature flag service", "the image resizer", "the email queue",
];
const technologies = ["PostgreSQL", "Redis", "Kafka", "H2", "Maven", "Gradle", "Docker", "Kubernetes", "Jetty", "Lucene"];
const causes = [
  "a race between two writers", "a missing index on the orders table", "an expired certificate",
  "a timezone assumption in the scheduler", "a stale cache entry after failover", "an unbounded retry loop",
  "a connection leak in the error path", "a null user_id in old rows", "a wrong default in application.yml",
  "clock skew between the nodes",
];
const reasons = [
  "it needs no setup for new contributors", "the team already operates it", "the licence is compatible",
  "it halved the p99 latency in staging", "rolling back is a one-line change", "the vendor dropped support",
];
const observations = [
  "the dashboards look normal again", "memory stays flat over an hour", "two tests still fail on Windows",
  "needs a second review before merging", "the on-call engineer confirmed the fix", "logs show no more warnings",
  "throughput dropped by ten percent", "the customer confirmed it works now",
];
const symptoms = ["hangs on start-up", "returns duplicate rows", "drops requests", "logs users out", "runs out of memory"];

/** One note as an agent writes it: two or three sentences about the work. */
function note(rnd) {
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const version = `v${1 + Math.floor(rnd() * 4)}.${Math.floor(rnd() * 20)}`;
  const templates = [
    () => `Fixed a flaky test in ${pick(subjects)}: the cause was ${pick(causes)}.`,
    () => `Decided to keep ${pick(subjects)} on ${pick(technologies)} because ${pick(reasons)}.`,
    () => `${cap(pick(subjects))} times out under load; ${pick(observations)}.`,
    () => `TODO: move ${pick(subjects)} behind a feature flag before the ${version} release.`,
    () => `Reviewed the pull request for ${pick(subjects)}; ${pick(observations)}.`,
    () => `Deployed ${pick(subjects)} to staging with ${pick(technologies)}; ${pick(observations)}.`,
    () => `A customer reported that ${pick(subjects)} ${pick(symptoms)} after upgrading to ${version}.`,
    () => `Benchmarked ${pick(subjects)}: p99 went from ${10 + Math.floor(rnd() * 90)} ms to ${1 + Math.floor(rnd() * 9)} ms.`,
  ];
  const sentences = 2 + Math.floor(rnd() * 2);
  const out = [];
  for (let i = 0; i < sentences; i++) out.push(pick(templates)());
  return out.join(" ");
}
const cap = (s) => s[0].toUpperCase() + s.slice(1);

/** Notes, and one-word queries taken from them (words of five letters or more), from one seed. */
function workload() {
  const rnd = random(options.seed);
  const notes = Array.from({ length: options.stores }, () => note(rnd));
  const queries = [];
  while (queries.length < options.searches) {
    const words = notes[Math.floor(rnd() * notes.length)].toLowerCase().match(/[a-z]{5,}/g) ?? [];
    if (words.length > 0) queries.push(words[Math.floor(rnd() * words.length)]);
  }
  return { notes, queries };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))];
}

/** Calls `call(i)` n times in a row, as one agent does; rate, p50 and p99 of the calls. */
async function timed(n, call) {
  const nanos = new Array(n);
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await call(i);
    nanos[i] = Number(process.hrtime.bigint() - t0);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  nanos.sort((a, b) => a - b);
  return { perSecond: n / seconds, p50: nanos[Math.floor(n / 2)] / 1e6, p99: percentile(nanos, 0.99) / 1e6 };
}

async function connect(name, command, args, env) {
  const client = new Client({ name: `sgm-bench-${name}`, version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: "ignore" }));
  return client;
}

/** A tool call that must succeed: a benchmark of failing calls would measure nothing. */
async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    throw new Error(`${name} failed: ${JSON.stringify(result.content ?? result.structuredContent).slice(0, 500)}`);
  }
  return result;
}

const { notes, queries } = workload();
const work = mkdtempSync(join(tmpdir(), "sgm-mcp-bench-"));
const require = createRequire(import.meta.url);
const peerPackage = require.resolve("mcp-memory-keeper/package.json");
const peerVersion = JSON.parse(readFileSync(peerPackage, "utf8")).version;
const rows = {};
try {
  console.log(`MCP over stdio, official TypeScript SDK client; ${notes.length.toLocaleString("en")} single stores, then ` +
    `${queries.length.toLocaleString("en")} one-word searches (limit ${options.limit}), seed ${options.seed}`);
  console.log(`example note: ${notes[0]}`);
  console.log(`example queries: ${queries.slice(0, 8).join(", ")}`);

  const sgm = await connect("sgm", options.sgm, ["mcp", "--data", join(work, "sgm"), "--project", "bench", "--agent", "bench"], {});
  const discovery = (await call(sgm, "sgm_discover", {})).structuredContent ?? {};
  const retrieval = discovery.retrieval;
  const modes = retrieval?.modes ?? [];
  console.log(`sgm ${discovery.implementation_version ?? ""}: ` +
    (retrieval ? `retrieval ${JSON.stringify(retrieval)}` : "discovery has no \"retrieval\" object (no retrieve modes advertised)"));
  rows.sgmStore = await timed(notes.length, (i) => call(sgm, "sgm_store", { content: notes[i] }));
  const hits = { text: 0, default: 0 };
  if (modes.includes("text")) {
    rows.sgmText = await timed(queries.length, async (i) => {
      const r = await call(sgm, "sgm_retrieve", { text: queries[i], mode: "text", limit: options.limit });
      hits.text += r.structuredContent.records.length;
    });
  }
  rows.sgmDefault = await timed(queries.length, async (i) => {
    const r = await call(sgm, "sgm_retrieve", { text: queries[i], limit: options.limit });
    hits.default += r.structuredContent.records.length;
  });
  await sgm.close();

  const peer = await connect("peer", process.execPath, [join(peerPackage, "..", "dist", "index.js")], {
    DATA_DIR: join(work, "peer"),
  });
  await call(peer, "context_session_start", { name: "bench" });
  rows.peerStore = await timed(notes.length, (i) => call(peer, "context_save", { key: `note-${i}`, value: notes[i], category: "note" }));
  let peerHits = 0;
  rows.peerSearch = await timed(queries.length, async (i) => {
    const r = await call(peer, "context_search", { query: queries[i], limit: options.limit });
    peerHits += peerItems(r);
  });
  await peer.close();

  const row = (label, measured, found, absent) =>
    console.log(label.padEnd(52) + (measured
      ? `${fmt(measured.perSecond, 0).padStart(9)} ${fmt(measured.p50, 2).padStart(8)} ${fmt(measured.p99, 2).padStart(8)}` +
        (found === undefined ? "" : fmt(found / queries.length, 1).padStart(9))
      : absent));
  console.log();
  console.log(`${"".padEnd(52)}${"calls/s".padStart(9)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)}${"hits/q".padStart(9)}`);
  row("sgm: sgm_store", rows.sgmStore);
  row("sgm: sgm_retrieve, mode: text", rows.sgmText, hits.text, "      n/a (the server does not advertise mode text)");
  row(`sgm: sgm_retrieve, default mode (${retrieval?.default_mode ?? "none advertised"})`, rows.sgmDefault, hits.default);
  row(`mcp-memory-keeper ${peerVersion}: context_save`, rows.peerStore);
  row(`mcp-memory-keeper ${peerVersion}: context_search`, rows.peerSearch, peerHits);
  const ratio = (a, b) => (a && b ? `${fmt(a.perSecond / b.perSecond, 2)}x` : "n/a");
  console.log();
  console.log(`sgm / mcp-memory-keeper: stores ${ratio(rows.sgmStore, rows.peerStore)} (target >= 1.5x), ` +
    `searches in mode text ${ratio(rows.sgmText, rows.peerSearch)} (target >= 5x), ` +
    `in the default mode ${ratio(rows.sgmDefault, rows.peerSearch)} (target >= 1.5x)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** How many items a context_search answered: its text is a JSON document of the items found. */
function peerItems(result) {
  const text = result.content?.find((c) => c.type === "text")?.text ?? "";
  try {
    const parsed = JSON.parse(text);
    const items = parsed.items ?? parsed.results ?? parsed;
    return Array.isArray(items) ? items.length : 0;
  } catch {
    const m = text.match(/Found (\d+)/);
    return m ? Math.min(Number(m[1]), options.limit) : 0;
  }
}

function fmt(value, digits) {
  return value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
