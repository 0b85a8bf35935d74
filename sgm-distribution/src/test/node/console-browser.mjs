// Drives the web console in the system's headless Chromium through puppeteer-core, as a person would:
// every check reads what the page shows. Usage:
//   node console-browser.mjs BASE_URL SCREENSHOT_DIR                 (a server without authentication)
//   node console-browser.mjs BASE_URL SCREENSHOT_DIR OWNER_TOKEN ALPHA_TOKEN   (authentication on)
import puppeteer from "puppeteer-core";
import { mkdirSync } from "node:fs";

const [base, shots, ownerToken, alphaToken] = process.argv.slice(2);
const auth = Boolean(alphaToken);
mkdirSync(shots, { recursive: true });
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

async function api(op, body, token = ownerToken) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(`${base}/v1/${op}`, { method: "POST", headers, body: JSON.stringify(body) });
  const json = await response.json();
  if (!response.ok) throw new Error(`${op}: ${JSON.stringify(json)}`);
  return json;
}

function note(project, id, content, extra = {}) {
  return { id, type: "note", scope: { project }, content, provenance: { agent: "seeder" }, ...extra };
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const external = [];
const page = await browser.newPage();
await page.setViewport({ width: 1366, height: 860 });
page.on("dialog", (dialog) => dialog.accept());
page.on("request", (request) => {
  if (!request.url().startsWith(base) && !request.url().startsWith("blob:") && !request.url().startsWith("data:")) external.push(request.url());
});
const errors = [];
page.on("pageerror", (e) => errors.push(String(e)));
page.on("console", (m) => {
  // A refused request (the conflict, a deleted record's 404) is the browser's log line, not a fault.
  if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(m.text());
});

const text = (selector) => page.$eval(selector, (e) => e.innerText).catch(() => "");
async function waitText(selector, wanted, timeout = 10000) {
  try {
    await page.waitForFunction(
      (s, w) => [...document.querySelectorAll(s)].some((e) => e.innerText.includes(w)),
      { timeout },
      selector,
      wanted,
    );
    return true;
  } catch {
    return false;
  }
}
async function shot(name) {
  await page.evaluate(() => document.activeElement?.blur());
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: false });
}
/** Clicks the button whose text is exactly this, as a person picks it by its words. */
async function press(words) {
  const found = await page.evaluate((w) => {
    const button = [...document.querySelectorAll("button")].find((b) => b.innerText.trim() === w && !b.disabled);
    if (!button) return false;
    button.click();
    return true;
  }, words);
  if (!found) throw new Error(`no button "${words}" on ${page.url()}`);
}
/** Every input, select and textarea on the page has a label a screen reader announces. */
async function unlabelled() {
  return page.$$eval("input, select, textarea", (controls) =>
    controls
      .filter((c) => c.type !== "hidden" && c.offsetParent !== null)
      .filter((c) => !(c.labels?.length && [...c.labels].some((l) => l.innerText.trim())) && !c.getAttribute("aria-label"))
      .map((c) => c.outerHTML.slice(0, 80)),
  );
}

try {
  if (!auth) {
    const records = [];
    for (let i = 1; i <= 120; i++) records.push(note("demo", `n${i}`, `Note number ${i} about the weekly report`, { tags: [i % 2 ? "odd" : "even"] }));
    records.push(note("demo", "build", "The build uses Maven and runs the tests on every push.", { tags: ["build"] }));
    records.push({ ...note("demo", "other-agent", "Written by someone else"), provenance: { agent: "claude" } });
    records.push(note("demo-two", "x1", "Another project"));
    records.push({ ...note("demo", "s1-note", "A session note"), scope: { project: "demo", session: "s1" } });
    records.push({ id: "t1", type: "task", scope: { project: "demo" }, content: "Migrate the schema", provenance: { agent: "seeder" }, data: { state: "open" } });
    records.push({ id: "t2", type: "task", scope: { project: "demo" }, content: "Ship it", provenance: { agent: "seeder" }, data: { state: "open", depends_on: ["t1"] } });
    records.push({ id: "d1", type: "decision", scope: { project: "demo" }, content: "Use H2", provenance: { agent: "seeder" }, data: { status: "accepted", rationale: "no setup" } });
    records.push({ id: "r1", type: "rule", scope: { project: "demo" }, content: "Run the tests", provenance: { agent: "seeder" }, data: { statement: "Run the tests before pushing", severity: "must" } });
    records.push({ id: "h1", type: "handoff", scope: { project: "demo" }, content: "Over to you", provenance: { agent: "seeder" }, data: { from_agent: "seeder", to_agent: "bob", state: "open", summary: "Finish the migration", context: ["t1"] } });
    await api("store_batch", { records });
    await api("store", { record: { id: "d2", type: "decision", scope: { project: "demo" }, content: "Use PostgreSQL for teams", provenance: { agent: "seeder" }, data: { status: "accepted", rationale: "several nodes", supersedes: ["d1"] } } });

    // 1. Open the console: the scope tree with counts.
    await page.goto(`${base}/`, { waitUntil: "load" });
    await waitText("main h1", "Scopes");
    check("the console opens on the scopes page", (await text("main h1")) === "Scopes", await text("main h1"));
    check("the tree lists the projects with counts", (await waitText("#tree", "demo-two")) && (await text("#tree")).includes("session s1"), await text("#tree"));
    check("the scopes page counts every record", (await text("main")).includes("130 records in 3 scopes"), await text("main p"));
    check("scopes page: every control is labelled", (await unlabelled()).length === 0, await unlabelled());
    await shot("scopes");

    // 2. Pick a scope: its records, newest first, a page at a time.
    await page.click('#tree a[data-scope="project=demo"]');
    await waitText("#records-summary", "records");
    check("picking a scope shows its records", (await text("#records-summary")).startsWith("128 records"), await text("#records-summary"));
    const rows = await page.$$eval("table.records tbody tr", (r) => r.length);
    check("a page holds 50 records, not all of them", rows === 50, rows);
    check("the pager says where we are", (await text(".pager")).includes("Page 1 of 3"), await text(".pager"));
    await page.click(".pager button:last-child");
    await waitText(".pager", "Page 2 of 3");
    check("the next page comes from the API", (await page.$$eval("table.records tbody tr", (r) => r.length)) === 50, "");
    check("records page: every control is labelled", (await unlabelled()).length === 0, await unlabelled());
    await shot("records");

    // Filters: by agent, by type, by tag.
    await page.goto(`${base}/#/scope/project%3Ddemo?agent=claude`, { waitUntil: "load" });
    await waitText("#records-summary", "record");
    check("the agent filter keeps that agent's records", (await text("#records-summary")).startsWith("1 records") && (await text("table.records tbody")).includes("other-agent"), await text("#records-summary"));
    await page.goto(`${base}/#/scope/project%3Ddemo?type=task`, { waitUntil: "load" });
    await waitText("#records-summary", "records");
    check("the type filter keeps tasks", (await text("#records-summary")).startsWith("2 records"), await text("#records-summary"));

    // Tab order: skip link, header, then the search controls before the results.
    await page.goto(`${base}/#/scope/project%3Ddemo`, { waitUntil: "load" });
    await page.reload({ waitUntil: "load" });
    await waitText("#records-summary", "records");
    const order = [];
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press("Tab");
      order.push(await page.evaluate(() => {
        const e = document.activeElement;
        return e.labels?.[0]?.innerText || e.innerText?.trim().split("\n")[0] || e.getAttribute("aria-label") || e.tagName;
      }));
    }
    const at = (name) => order.findIndex((o) => o === name);
    check(
      "tabbing reaches skip link, sections, search, filters and records in that order",
      at("Skip to content") === 0 && at("Records") > 0 && at("Search in plain words") > at("Records") && at("Agent") > at("Search in plain words") && at("Apply") > at("Agent"),
      order,
    );
    const focusVisible = await page.evaluate(() => {
      const input = document.querySelector('input[name="q"]');
      input.focus();
      return getComputedStyle(input).outlineStyle !== "none";
    });
    check("the focused control is visibly outlined", focusVisible, "");

    // 3. Search in plain words.
    await page.type('input[name="q"]', "what build tool do we use");
    await page.click('form[role="search"] button[type="submit"]');
    await waitText("#records-summary", "match");
    const first = await page.$eval("table.records tbody tr td a", (a) => a.innerText).catch(() => "");
    check("a plain-words search ranks the build note first", first === "build", { first, summary: await text("#records-summary") });
    await shot("search");

    // 4. Open a record: every field and its provenance.
    await page.click("table.records tbody tr td a");
    await waitText("main h1", "note build");
    check("the record page names the record", (await text("main h1")).includes("version 1"), await text("main h1"));
    check("the record shows its provenance", (await text("#provenance")).includes("seeder") && (await text("#provenance")).includes("http"), await text("#provenance"));
    check("the record shows its content", (await text("#record-content")).includes("Maven"), await text("#record-content"));
    await shot("record");

    // 5. Edit it: version 2, written by the person through the console, and the diff.
    await press("Edit");
    await page.waitForSelector('textarea[name="content"]');
    check("edit form: every control is labelled", (await unlabelled()).length === 0, await unlabelled());
    await page.$eval('textarea[name="content"]', (t) => (t.value = "The build uses Maven 3.9.\nTests run on every push."));
    await press("Save");
    await waitText("main h1", "version 2");
    check("the edit is version 2", (await text("main h1")).includes("version 2"), await text("main h1"));
    check("the edit is written by the person through the console", (await text("#provenance")).includes("console-user") && (await text("#provenance")).includes("console"), await text("#provenance"));
    check("history lists both versions", (await page.$$eval("#history > table tbody tr", (r) => r.length)) === 2, await text("#history > table"));
    const diff = await text("#diff");
    check("the diff shows the old line and the new lines side by side", diff.includes("− The build uses Maven and runs") && diff.includes("+ The build uses Maven 3.9.") && diff.includes("+ Tests run on every push."), diff);
    await page.$eval("#history", (e) => e.scrollIntoView());
    await shot("history-diff");

    // A concurrent change is shown as a conflict and never overwritten.
    await api("store", { record: { ...(await api("read", { scope: { project: "demo" }, id: "build" })).record, content: "Changed elsewhere", version: undefined, updated_at: undefined } });
    await press("Edit");
    await page.waitForSelector('textarea[name="content"]');
    await page.$eval('textarea[name="content"]', (t) => (t.value = "My late edit"));
    await press("Save");
    check("a concurrent change is shown as a conflict", await waitText("[role=alert]", "someone else changed this record"), await text("main"));
    const kept = (await api("read", { scope: { project: "demo" }, id: "build" })).record;
    check("the other change is not overwritten", kept.content === "Changed elsewhere" && kept.version === 3, kept);
    await shot("conflict");

    // Restore a version: it becomes the new current version.
    await press("Reload their version");
    await waitText("main h1", "version 3");
    await press("Restore version 2");
    await waitText("main h1", "version 4");
    check("restoring version 2 makes it version 4", (await text("#record-content")).includes("The build uses Maven 3.9."), await text("main h1"));

    // References are followed to the records they name.
    await page.goto(`${base}/#/record/project%3Ddemo/h1`, { waitUntil: "load" });
    check("a handoff's context is followed to the task it names", await waitText("#references", "task t1 — Migrate the schema"), await text("#references"));

    // 6. Delete and undelete.
    await page.goto(`${base}/#/record/project%3Ddemo/n7`, { waitUntil: "load" });
    await waitText("main h1", "n7");
    await press("Delete");
    check("a deleted record says so", await waitText("main h1", "deleted"), await text("main h1"));
    let gone = null;
    try {
      await api("read", { scope: { project: "demo" }, id: "n7" });
    } catch (e) {
      gone = String(e);
    }
    check("the record is deleted on the server", gone?.includes("not_found"), gone);
    await press("Undelete");
    await page.waitForFunction(() => !document.querySelector("main h1").innerText.includes("deleted"), { timeout: 10000 }).catch(() => {});
    check("undelete brings it back", !(await text("main h1")).includes("deleted") && (await api("read", { scope: { project: "demo" }, id: "n7" })).record.id === "n7", await text("main h1"));

    // Live: a record stored elsewhere appears without a reload.
    await page.goto(`${base}/#/scope/project%3Ddemo`, { waitUntil: "load" });
    check("with authentication off there is no Sign in button", await page.evaluate(() => document.getElementById("sign-in").hidden), "");
    await page.waitForFunction(() => document.getElementById("live").textContent === "live", { timeout: 10000 }).catch(() => {});
    check("the header says the page is live", (await text("#live")) === "live", await text("#live"));
    await api("store", { record: note("demo", "fresh", "Stored while the console watches") });
    check("a new record appears without a reload", await waitText("table.records tbody", "fresh"), await text("table.records tbody"));

    // 7. Claim a task from the board.
    await page.goto(`${base}/#/collab/project%3Ddemo`, { waitUntil: "load" });
    await waitText("#ready-queue", "t1");
    check("the ready queue holds the task without pending dependencies", (await text("#ready-queue")).includes("t1") && !(await text("#ready-queue")).includes("t2"), await text("#ready-queue"));
    check("the decision log shows the supersede chain", (await text("#decision-log")).includes("supersedes d1"), await text("#decision-log"));
    check("active rules are listed by severity", (await text("#rules-title")).includes("1") && (await text("main")).includes("Run the tests before pushing"), await text("main"));
    check("open handoffs are listed", (await text("main")).includes("Finish the migration"), "");
    check("board: every control is labelled", (await unlabelled()).length === 0, await unlabelled());
    await page.click('button[aria-label="Claim t1"]');
    check("the claimed task moves to in progress with its assignee", await waitText('[data-state="in_progress"]', "assignee: console-user"), await text(".board"));
    const claimed = (await api("read", { scope: { project: "demo" }, id: "t1" })).record;
    check("the claim is on the server", claimed.data.state === "in_progress" && claimed.data.assignee === "console-user", claimed.data);
    await shot("board");

    // Snapshots: the confirmation lists what a restore would change.
    await api("snapshots.create", { scope: { project: "demo" }, name: "before" });
    await api("store", { record: note("demo", "after-snapshot", "Stored after the snapshot") });
    await page.goto(`${base}/#/snapshots/project%3Ddemo`, { waitUntil: "load" });
    await waitText("main", "Restore before");
    await press("Restore before…");
    check("restoring a snapshot first lists what will change", await waitText("#restore-plan", "after-snapshot is deleted"), await text("#restore-plan"));
    await shot("snapshots");
  } else {
    // With authentication: a token granting one project never shows the other.
    await api("store_batch", { records: [note("alpha", "a1", "Alpha plan"), note("beta", "b1", "Beta secret plan")] });
    await page.goto(`${base}/`, { waitUntil: "load" });
    await page.waitForSelector("#token-dialog[open]", { timeout: 10000 });
    check("the console asks for a token", true, "");
    check("token prompt: every control is labelled", (await unlabelled()).length === 0, await unlabelled());
    await shot("sign-in");
    await page.type("#token-input", alphaToken);
    await page.click("#token-form button[type=submit]");
    await waitText("#tree", "alpha");
    check("the granted project is shown", (await text("#tree")).includes("alpha"), await text("#tree"));
    check("the other project is never shown", !(await page.evaluate(() => document.body.innerText)).includes("beta"), await page.evaluate(() => document.body.innerText));
    check("the token is kept for this tab only", (await page.evaluate(() => sessionStorage.getItem("sgm.console.token"))) === alphaToken && (await page.evaluate(() => localStorage.length)) === 0, "");
    await page.goto(`${base}/#/scope/project%3Dbeta`, { waitUntil: "load" });
    await waitText("main", "forbidden");
    check("naming the other project is refused", (await text("main")).includes("forbidden") && !(await text("main")).includes("Beta secret"), await text("main"));
    await page.goto(`${base}/#/scope/project%3Dalpha`, { waitUntil: "load" });
    await waitText("#records-summary", "records");
    check("the granted project's records are shown", (await text("table.records")).includes("a1"), await text("main"));
    await shot("auth");
  }
  check("nothing was requested from another host", external.length === 0, external);
  check("the page logged no errors", errors.length === 0, errors);
} catch (e) {
  failed++;
  console.log(`FAIL unexpected: ${e.stack ?? e}`);
  await shot("failure").catch(() => {});
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
