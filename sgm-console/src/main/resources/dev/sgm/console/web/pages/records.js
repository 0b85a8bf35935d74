// A scope's records, newest first, a page at a time from the API (never loaded whole), with
// filters (type, tag, agent, dates) and search in plain words through the relevance modes.
import { call } from "../api.js";
import { announce, field, fill, h, when } from "../dom.js";
import { canonical, contains, label } from "../scope.js";
import { href, session } from "../app.js";

const PAGE_SIZE = 50;

/** The retrieve query of the filters in the route. */
export function queryOf(scope, params) {
  const query = { scope, limit: PAGE_SIZE };
  const mode = params.get("scope_mode");
  if (mode) query.scope_mode = mode;
  if (params.get("type")) query.types = [params.get("type")];
  if (params.get("tag")) query.tags = [params.get("tag")];
  if (params.get("agent")) query.filter = { "provenance.agent": params.get("agent") };
  if (params.get("after")) query.created_after = new Date(params.get("after") + "T00:00:00Z").toISOString();
  if (params.get("before")) query.created_before = new Date(params.get("before") + "T23:59:59.999Z").toISOString();
  if (params.get("q")) {
    query.text = params.get("q");
    if (params.get("mode")) query.mode = params.get("mode");
  } else {
    query.order_by = "created_at";
    query.order = "desc";
  }
  return query;
}

function firstLine(record) {
  const text = record.title ?? (typeof record.content === "string" ? record.content : "");
  const line = text.split("\n")[0];
  return line.length > 140 ? line.slice(0, 140) + "…" : line;
}

function row(record, score) {
  const scopeText = canonical(record.scope);
  return h(
    "tr",
    {},
    h("td", {}, h("a", { href: href("record", scopeText, record.id) }, record.id)),
    h("td", {}, record.type),
    h("td", { class: "content" }, record.redacted ? h("em", {}, "redacted") : firstLine(record)),
    h("td", {}, (record.tags ?? []).map((tag) => h("span", { class: "tag" }, tag))),
    h("td", {}, record.provenance?.agent ?? ""),
    h("td", {}, when(record.created_at)),
    score === undefined ? null : h("td", {}, score.toFixed(3)),
  );
}

export async function recordsPage(page, scope) {
  const params = page.params;
  const scopeText = canonical(scope);
  const modes = session.discovery?.retrieval?.modes ?? ["text"];
  const types = new Set(["note", ...Object.keys(session.discovery?.record_types ?? {})]);
  if (params.get("type")) types.add(params.get("type"));
  const form = h("form", { class: "filters", role: "search", "aria-label": "Filter and search records" });
  const q = h("input", { type: "search", name: "q", value: params.get("q") ?? "", placeholder: "what did we decide about…" });
  const chosen = params.get("mode") ?? session.discovery?.retrieval?.default_mode ?? "text";
  const mode = h("select", { name: "mode" }, modes.map((m) => h("option", { value: m, selected: chosen === m }, m)));
  const scopeMode = h(
    "select",
    { name: "scope_mode" },
    h("option", { value: "" }, "this scope only"),
    h("option", { value: "descendants", selected: params.get("scope_mode") === "descendants" }, "and narrower scopes"),
  );
  const type = h("select", { name: "type" }, h("option", { value: "" }, "any type"), [...types].sort().map((t) => h("option", { value: t, selected: params.get("type") === t }, t)));
  const tag = h("input", { type: "text", name: "tag", value: params.get("tag") ?? "", size: 10 });
  const agent = h("input", { type: "text", name: "agent", value: params.get("agent") ?? "", size: 10 });
  const after = h("input", { type: "date", name: "after", value: params.get("after") ?? "" });
  const before = h("input", { type: "date", name: "before", value: params.get("before") ?? "" });
  fill(
    form,
    field("Search in plain words", q),
    field("Search mode", mode),
    field("Scopes", scopeMode),
    field("Type", type),
    field("Tag", tag),
    field("Agent", agent),
    field("Created from", after),
    field("Created until", before),
    h("button", { type: "submit", class: "primary" }, "Apply"),
    h("a", { href: href("scope", scopeText), class: "button" }, "Clear"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = Object.fromEntries([...new FormData(form).entries()].filter(([, v]) => v !== ""));
    if (!values.q) delete values.mode;
    location.hash = href("scope", scopeText, values);
  });

  const summary = h("p", { class: "muted", id: "records-summary", "aria-live": "polite" });
  const body = h("tbody");
  const searching = Boolean(params.get("q"));
  const table = h(
    "table",
    { class: "records", "aria-describedby": "records-summary" },
    h("thead", {}, h("tr", {}, ["Id", "Type", "Content", "Tags", "Agent", "Created"].map((t) => h("th", { scope: "col" }, t)), searching ? h("th", { scope: "col" }, "Score") : null)),
    body,
  );
  const previous = h("button", { type: "button" }, "Previous page");
  const next = h("button", { type: "button" }, "Next page");
  const position = h("span", { class: "muted" });
  const pager = h("nav", { class: "pager", "aria-label": "Pages" }, previous, position, next);

  fill(
    page.element,
    h("h1", {}, `Records of ${label(scope)}`),
    h("p", { class: "muted" }, h("code", {}, scopeText)),
    form,
    summary,
    table,
    pager,
  );

  // The scope's own types join the list when the count arrives; the records do not wait for it.
  if (session.has("scopes")) {
    call("scopes", { scope, limit: 1 })
      .then((listing) => {
        const own = Object.keys(listing.scopes?.[0]?.types ?? {}).filter((t) => !types.has(t));
        own.forEach((t) => type.append(h("option", { value: t }, t)));
      })
      .catch(() => {});
  }
  const query = queryOf(scope, params);
  // Cursors of the pages seen so far: page n starts at cursors[n] (undefined for the first).
  const cursors = [undefined];
  let index = 0;
  async function show(n) {
    const started = performance.now();
    const request = { ...query };
    if (cursors[n]) request.cursor = cursors[n];
    previous.disabled = next.disabled = true;
    const result = await call("retrieve", request);
    index = n;
    cursors[n + 1] = result.next_cursor;
    fill(body, result.records.map((record, i) => row(record, result.scores?.[i])));
    const pages = Math.max(1, Math.ceil(result.total / PAGE_SIZE));
    fill(summary, result.total === 0 ? "No records match." : `${result.total} records${searching ? " match" : ""}, newest first${searching ? " by relevance" : ""}.`);
    fill(position, `Page ${n + 1} of ${pages}`);
    previous.disabled = n === 0;
    next.disabled = !result.next_cursor;
    document.body.dataset.recordsPainted = String(performance.now());
    document.body.dataset.recordsStep = String(performance.now() - started);
  }
  previous.addEventListener("click", () => show(index - 1).catch((e) => announce(e.message, "error")));
  next.addEventListener("click", () => show(index + 1).catch((e) => announce(e.message, "error")));
  await show(0);

  let timer = null;
  page.onChange = (event) => {
    const covered = query.scope_mode === "descendants" ? contains(scope, event.scope) : canonical(event.scope) === scopeText;
    if (!covered || index !== 0) return;
    clearTimeout(timer);
    // A burst of writes repaints once; the first page is the one new records land on.
    timer = setTimeout(() => page.shown && show(0).catch(() => {}), 300);
  };
}
