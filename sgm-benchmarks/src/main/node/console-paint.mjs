// Measures the web console in headless Chromium against a running server: seeds two scopes through
// store_batch (10,000 and 100,000 records), then times the first paint of a scope's records from
// navigation start and each step of paging through the larger one. Usage:
//   node console-paint.mjs BASE_URL PUPPETEER_DIR [pages]
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const [base, puppeteerDir, pagesArg] = process.argv.slice(2);
const steps = Number(pagesArg ?? 50);
const require = createRequire(`${puppeteerDir}/package.json`);
const puppeteer = (await import(pathToFileURL(require.resolve("puppeteer-core")))).default;

async function call(op, body) {
  const response = await fetch(`${base}/v1/${op}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const json = await response.json();
  if (!response.ok) throw new Error(`${op}: ${JSON.stringify(json)}`);
  return json;
}

async function seed(project, count) {
  const started = performance.now();
  for (let first = 0; first < count; first += 1000) {
    const records = [];
    for (let i = first; i < Math.min(count, first + 1000); i++) {
      records.push({
        id: `r${i}`,
        type: i % 10 === 0 ? "decision" : "note",
        scope: { project },
        content: `Record ${i} of ${project}: notes on the build, the release and the weekly report.`,
        tags: [`t${i % 7}`],
        provenance: { agent: `agent-${i % 5}` },
      });
    }
    await call("store_batch", { records });
  }
  return performance.now() - started;
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const ms = (v) => `${v.toFixed(0)} ms`;

console.log(`seeding 10,000 records: ${ms(await seed("bench-10k", 10000))}`);
console.log(`seeding 100,000 records: ${ms(await seed("bench-100k", 100000))}`);
let tree = performance.now();
await call("scopes", {});
console.log(`scopes (the tree), first call after the writes: ${ms(performance.now() - tree)}`);
tree = performance.now();
await call("scopes", {});
console.log(`scopes, again (kept until the next write): ${ms(performance.now() - tree)}`);

const browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
try {
  // First paint: a fresh tab each time, from navigation start to the first records on screen.
  const paints = [];
  for (let run = 0; run < 6; run++) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1366, height: 860 });
    await page.goto(`${base}/#/scope/project%3Dbench-10k`, { waitUntil: "load" });
    await page.waitForFunction(() => document.body.dataset.recordsPainted && document.querySelectorAll("table.records tbody tr").length === 50, { timeout: 30000 });
    const painted = Number(await page.evaluate(() => document.body.dataset.recordsPainted));
    if (run > 0) paints.push(painted); // the first run warms the server's caches and the browser's
    await page.close();
  }
  console.log(`first paint of a 10,000-record scope: median ${ms(quantile(paints, 0.5))}, max ${ms(Math.max(...paints))} over ${paints.length} fresh tabs (target <= 1000 ms)`);

  // Paging: each Next, from the click to the next page painted, through the 100,000-record scope.
  const page = await browser.newPage();
  await page.setViewport({ width: 1366, height: 860 });
  await page.goto(`${base}/#/scope/project%3Dbench-100k`, { waitUntil: "load" });
  await page.waitForFunction(() => document.querySelectorAll("table.records tbody tr").length === 50, { timeout: 30000 });
  const firstBig = Number(await page.evaluate(() => document.body.dataset.recordsPainted));
  await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ type: "longtask", buffered: false });
  });
  const stepTimes = [];
  for (let n = 1; n <= steps; n++) {
    const before = await page.evaluate(() => document.body.dataset.recordsPainted);
    const started = await page.evaluate(() => performance.now());
    await page.click(".pager button:last-child");
    await page.waitForFunction((b) => document.body.dataset.recordsPainted !== b, { timeout: 30000 }, before);
    const painted = Number(await page.evaluate(() => document.body.dataset.recordsPainted));
    stepTimes.push(painted - started);
  }
  const position = await page.$eval(".pager", (e) => e.innerText);
  const longTasks = await page.evaluate(() => window.longTasks);
  console.log(`first paint of a 100,000-record scope: ${ms(firstBig)}`);
  console.log(`paging ${steps} pages of 50 through 100,000 records (${position.replace(/\s+/g, " ")}): p50 ${ms(quantile(stepTimes, 0.5))}, p95 ${ms(quantile(stepTimes, 0.95))}, max ${ms(Math.max(...stepTimes))}`);
  console.log(`main-thread tasks over 50 ms while paging: ${longTasks.length}${longTasks.length ? ` (longest ${ms(Math.max(...longTasks))})` : ""}`);
  const dom = await page.$$eval("table.records tbody tr", (r) => r.length);
  console.log(`rows in the page after paging: ${dom} (one page, never the whole scope)`);
} finally {
  await browser.close();
}
