// Collaboration at a glance: the task board by state with the ready queue, assignees and leases;
// the decision log with its supersede chains; active rules by severity; open handoffs.
import { call } from "../api.js";
import { announce, field, fill, h, when } from "../dom.js";
import { canonical, label } from "../scope.js";
import { href, session } from "../app.js";

const STATES = ["open", "in_progress", "blocked", "done", "cancelled"];

/** Every record of one type in the scope (and narrower ones), a page of 1000 at a time, up to 5000. */
async function all(scope, type, extra = {}) {
  const records = [];
  let cursor;
  do {
    const page = await call("retrieve", { scope, scope_mode: "descendants", types: [type], limit: 1000, order_by: "created_at", order: "desc", ...extra, ...(cursor ? { cursor } : {}) });
    records.push(...page.records);
    cursor = page.next_cursor;
  } while (cursor && records.length < 5000);
  return records;
}

function link(record, text) {
  return h("a", { href: href("record", canonical(record.scope), record.id) }, text ?? record.id);
}

function summary(record) {
  return record.title ?? (typeof record.content === "string" ? record.content.split("\n")[0].slice(0, 120) : "");
}

export async function collaborationPage(page, scope) {
  const element = page.element;
  const tasks = h("section", { "aria-labelledby": "tasks-title" });
  const decisions = h("section", { "aria-labelledby": "decisions-title" });
  const rules = h("section", { "aria-labelledby": "rules-title" });
  const handoffs = h("section", { "aria-labelledby": "handoffs-title" });
  fill(element, h("h1", {}, `Collaboration in ${label(scope)}`), tasks, decisions, rules, handoffs);
  await Promise.all([board(tasks, scope), decisionLog(decisions, scope), activeRules(rules, scope), openHandoffs(handoffs, scope)]);
  let timer = null;
  page.onChange = (event) => {
    if (!["task", "decision", "rule", "handoff"].includes(event.type)) return;
    clearTimeout(timer);
    timer = setTimeout(() => page.shown && collaborationPage(page, scope).catch(() => {}), 300);
  };
}

async function board(section, scope) {
  const [tasks, ready] = await Promise.all([all(scope, "task"), call("tasks.ready", { scope }).catch(() => ({ tasks: [] }))]);
  const lease = h("input", { type: "number", min: 0, step: 1, value: 0, size: 6 });
  const byState = new Map(STATES.map((s) => [s, []]));
  for (const task of tasks) {
    const state = task.data?.state ?? "open";
    if (!byState.has(state)) byState.set(state, []);
    byState.get(state).push(task);
  }
  const readyIds = new Set((ready.tasks ?? []).map((t) => canonical(t.scope) + ":" + t.id));
  const claim = async (task) => {
    const request = { scope: task.scope, id: task.id, agent: session.me };
    const minutes = Number(lease.value);
    if (minutes > 0) request.lease_ms = Math.round(minutes * 60000);
    try {
      await call("tasks.claim", request);
      announce(`Claimed ${task.id} as ${session.me}.`, "ok");
      await board(section, scope);
    } catch (e) {
      announce(`${e.code}: ${e.message}`, "error");
    }
  };
  const card = (task) =>
    h(
      "div",
      { class: "card", "data-task": task.id },
      h("p", {}, link(task), readyIds.has(canonical(task.scope) + ":" + task.id) ? [" ", h("span", { class: "badge accepted" }, "ready")] : null),
      h("p", {}, summary(task)),
      task.data?.assignee ? h("p", { class: "muted" }, `assignee: ${task.data.assignee}`) : null,
      task.data?.lease_expires_at ? h("p", { class: "muted" }, "lease until ", when(task.data.lease_expires_at)) : null,
      task.data?.priority !== undefined ? h("p", { class: "muted" }, `priority: ${task.data.priority}`) : null,
      (task.data?.state ?? "open") === "open" && !task.data?.assignee
        ? h("button", { type: "button", onclick: () => claim(task), "aria-label": `Claim ${task.id}` }, "Claim")
        : null,
    );
  fill(
    section,
    h("h2", { id: "tasks-title" }, "Tasks"),
    h("div", { class: "filters" }, field("Lease for a claim, in minutes (0: none)", lease)),
    h(
      "div",
      { class: "column", id: "ready-queue" },
      h("h3", {}, `Ready queue (${(ready.tasks ?? []).length})`),
      (ready.tasks ?? []).length ? h("ol", {}, ready.tasks.map((t) => h("li", {}, link(t), " ", summary(t)))) : h("p", { class: "muted" }, "Nothing is ready."),
    ),
    h("p"),
    h(
      "div",
      { class: "board", role: "list", "aria-label": "Task board" },
      [...byState.entries()].map(([state, list]) =>
        h("div", { class: "column", role: "listitem", "data-state": state }, h("h3", {}, `${state.replace("_", " ")} (${list.length})`), list.map(card)),
      ),
    ),
  );
}

/** Decisions with what they supersede and what superseded them, newest first. */
async function decisionLog(section, scope) {
  const decisions = await all(scope, "decision");
  const byKey = new Map(decisions.map((d) => [canonical(d.scope) + ":" + d.id, d]));
  const supersededBy = new Map();
  for (const d of decisions) {
    for (const old of d.data?.supersedes ?? []) supersededBy.set(canonical(d.scope) + ":" + old, d);
  }
  // A chain: from a decision back through what it superseded.
  const chain = (d) => {
    const seen = new Set();
    const steps = [];
    let currentDecision = d;
    while (currentDecision && !seen.has(currentDecision.id)) {
      seen.add(currentDecision.id);
      steps.push(currentDecision);
      const older = currentDecision.data?.supersedes?.[0];
      currentDecision = older ? byKey.get(canonical(currentDecision.scope) + ":" + older) : null;
    }
    return steps;
  };
  const heads = decisions.filter((d) => !supersededBy.has(canonical(d.scope) + ":" + d.id));
  fill(
    section,
    h("h2", { id: "decisions-title" }, `Decisions (${decisions.length})`),
    decisions.length === 0
      ? h("p", { class: "muted" }, "No decisions recorded.")
      : h(
          "ul",
          { id: "decision-log" },
          heads.map((d) => {
            const steps = chain(d);
            return h(
              "li",
              {},
              link(d),
              " ",
              h("span", { class: `badge ${d.data?.status ?? "proposed"}` }, d.data?.status ?? "proposed"),
              " ",
              summary(d),
              d.data?.rationale ? h("p", { class: "muted" }, `Why: ${d.data.rationale}`) : null,
              steps.length > 1
                ? h("ol", { class: "chain", "aria-label": `Supersede chain of ${d.id}` }, steps.slice(1).map((s) => h("li", {}, "supersedes ", link(s), " ", h("span", { class: `badge ${s.data?.status ?? ""}` }, s.data?.status ?? "proposed"), " ", summary(s))))
                : null,
            );
          }),
        ),
  );
}

async function activeRules(section, scope) {
  if (!session.has("rules.active")) return;
  const result = await call("rules.active", { scope });
  const bySeverity = { must: [], should: [], may: [] };
  for (const rule of result.rules ?? []) (bySeverity[rule.data?.severity] ?? (bySeverity[rule.data?.severity ?? "may"] = [])).push(rule);
  fill(
    section,
    h("h2", { id: "rules-title" }, `Active rules (${(result.rules ?? []).length})`),
    Object.entries(bySeverity).map(([severity, rules]) =>
      rules.length
        ? h("div", {}, h("h3", {}, h("span", { class: `badge ${severity}` }, severity)), h("ul", {}, rules.map((r) => h("li", {}, link(r), " ", r.data?.statement ?? summary(r), r.scope && canonical(r.scope) !== canonical(scope) ? h("span", { class: "muted" }, ` (from ${canonical(r.scope)})`) : null))))
        : null,
    ),
    (result.rules ?? []).length ? null : h("p", { class: "muted" }, "No active rules."),
  );
}

async function openHandoffs(section, scope) {
  const handoffs = (await all(scope, "handoff")).filter((r) => (r.data?.state ?? "open") === "open" || r.data?.state === "accepted");
  fill(
    section,
    h("h2", { id: "handoffs-title" }, `Open handoffs (${handoffs.length})`),
    handoffs.length === 0
      ? h("p", { class: "muted" }, "No open handoffs.")
      : h(
          "ul",
          {},
          handoffs.map((r) =>
            h(
              "li",
              {},
              link(r),
              ` ${r.data?.from_agent ?? "?"} → ${r.data?.to_agent ?? "anyone"} `,
              h("span", { class: "badge" }, r.data?.state ?? "open"),
              h("p", {}, r.data?.summary ?? summary(r)),
              (r.data?.next_steps ?? []).length ? h("ol", {}, r.data.next_steps.map((s) => h("li", {}, s))) : null,
              (r.data?.context ?? []).length ? h("p", { class: "muted" }, "context: ", r.data.context.map((c) => h("code", {}, String(c), " "))) : null,
            ),
          ),
        ),
  );
}
