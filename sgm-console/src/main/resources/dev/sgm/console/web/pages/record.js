// One record: every field, provenance, what it references, its content, its history with a
// side-by-side diff, and the corrections a person makes (edit, delete, undelete, restore).
import { ApiError, call, content } from "../api.js";
import { lineDiff, recordText } from "../diff.js";
import { announce, field, fill, h, when } from "../dom.js";
import { canonical, label, parseQualified } from "../scope.js";
import { href, refreshTree, session } from "../app.js";

/** The fields the server sets; an edit leaves them to it. */
const SERVER_SET = ["version", "updated_at", "redacted"];

/** A reference as written in a record (an id of the same scope, or "{scope}:{id}") resolved. */
function target(scope, reference) {
  if (typeof reference !== "string") return null;
  const qualified = reference.includes("=") ? parseQualified(reference) : null;
  return qualified ?? { scope, id: reference };
}

/** Every record this one names: links, and the ids its typed data points at. */
function references(record) {
  const named = [];
  const add = (relation, values) => {
    for (const value of Array.isArray(values) ? values : []) named.push({ relation, value });
  };
  add("links", record.links);
  add("supersedes", record.data?.supersedes);
  add("depends on", record.data?.depends_on);
  add("context", record.data?.context);
  return named;
}

function diffTable(leftTitle, rightTitle, before, after) {
  const rows = lineDiff(before, after);
  const changed = rows.filter((r) => r.kind !== "same").length;
  return h(
    "div",
    { class: "diff-view" },
    h("p", { class: "muted" }, changed === 0 ? "No differences." : `${changed} lines differ.`),
    h(
      "table",
      { class: "diff", "aria-label": `Differences between ${leftTitle} and ${rightTitle}` },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, leftTitle), h("th", { scope: "col" }, rightTitle))),
      h(
        "tbody",
        {},
        rows.map((r) =>
          h(
            "tr",
            { class: r.kind },
            h("td", { class: "left" }, r.left === null ? "" : (r.kind === "removed" || r.kind === "changed" ? "− " : "  ") + r.left),
            h("td", { class: "right" }, r.right === null ? "" : (r.kind === "added" || r.kind === "changed" ? "+ " : "  ") + r.right),
          ),
        ),
      ),
    ),
  );
}

async function versionsOf(scope, id) {
  if (!session.has("history.versions")) return null;
  const versions = [];
  let cursor;
  do {
    const page = await call("history.versions", { scope, id, limit: 100, ...(cursor ? { cursor } : {}) });
    versions.push(...page.versions);
    cursor = page.next_cursor;
  } while (cursor && versions.length < 1000);
  return versions;
}

export async function recordPage(page, scope, id) {
  const scopeText = canonical(scope);
  let read = null;
  let missing = null;
  try {
    read = await call("read", { scope, id, resolve: true });
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== "not_found") throw e;
    missing = e;
  }
  const versions = await versionsOf(scope, id).catch(() => null);
  const deleted = !read && versions?.length && versions[0].deleted;
  if (!read && !deleted) throw missing;
  const record = read ? read.record : versions.find((v) => !v.deleted)?.record ?? versions[0].record;

  const element = page.element;
  const notice = h("div", { "aria-live": "polite" });
  const parts = [
    h("p", {}, h("a", { href: href("scope", scopeText) }, `← Records of ${label(scope)}`)),
    h("h1", {}, `${record.type} ${record.id}`, " ", h("span", { class: "badge" }, `version ${record.version}`), deleted ? [" ", h("span", { class: "badge deleted" }, "deleted")] : null),
    notice,
    actions(),
  ];
  const editor = h("div");
  parts.push(editor);
  parts.push(h("h2", {}, "Fields"), fields(record));
  parts.push(h("h2", {}, "Provenance"), provenance(record));
  const named = references(record);
  if (named.length) {
    const list = h("ul", { id: "references" });
    parts.push(h("h2", {}, "References"), list);
    followReferences(list, scope, named);
  }
  if (record.reference) parts.push(h("h2", {}, "Referenced content"), referenced(record, read));
  if (versions) parts.push(h("h2", {}, "History"), history(versions));
  fill(element, parts);

  function actions() {
    const bar = h("div", { class: "actions" });
    if (deleted) {
      if (session.has("history.undelete")) bar.append(h("button", { type: "button", class: "primary", onclick: undelete }, "Undelete"));
      return bar;
    }
    bar.append(h("button", { type: "button", class: "primary", onclick: edit, disabled: record.redacted }, "Edit"));
    bar.append(h("button", { type: "button", class: "danger", onclick: remove }, "Delete"));
    return bar;
  }

  function edit() {
    const text = h("textarea", { name: "content", rows: 8 }, typeof record.content === "string" ? record.content : "");
    const title = h("input", { type: "text", name: "title", value: record.title ?? "", size: 60 });
    const tags = h("input", { type: "text", name: "tags", value: (record.tags ?? []).join(", "), size: 40 });
    const data = record.data !== undefined ? h("textarea", { name: "data", rows: 6 }, JSON.stringify(record.data, null, 2)) : null;
    const form = h(
      "form",
      { "aria-label": "Edit record" },
      h("h2", {}, "Edit"),
      h("p", { class: "muted" }, `Saved as a new version, written by ${session.me} through the console; if someone else changed it meanwhile, nothing is overwritten.`),
      field("Content", text),
      field("Title", title),
      field("Tags (comma-separated)", tags),
      data ? field("Data (JSON)", data) : null,
      h("div", { class: "actions" }, h("button", { type: "submit", class: "primary" }, "Save"), h("button", { type: "button", onclick: () => fill(editor) }, "Cancel")),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const next = structuredClone(record);
      SERVER_SET.forEach((key) => delete next[key]);
      next.content = text.value;
      if (title.value.trim()) next.title = title.value.trim();
      else delete next.title;
      const tagList = tags.value.split(",").map((t) => t.trim()).filter(Boolean);
      if (tagList.length) next.tags = tagList;
      else delete next.tags;
      if (data) {
        try {
          next.data = JSON.parse(data.value);
        } catch (e) {
          announce(`Data is not JSON: ${e.message}`, "error");
          data.focus();
          return;
        }
      }
      // The person is the author of the correction; principal is the server's to record.
      next.provenance = { ...record.provenance, agent: session.me, origin: "console" };
      delete next.provenance.principal;
      try {
        const stored = await call("store", { record: next, expected_version: record.version });
        announce(stored.changed ? `Saved as version ${stored.record.version}.` : "Nothing changed.", "ok");
        await recordPage(page, scope, id);
      } catch (e) {
        if (e instanceof ApiError && e.code === "conflict") {
          await conflict(next, e);
        } else {
          announce(`${e.code ?? "error"}: ${e.message}`, "error");
        }
      }
    });
    fill(editor, form);
    text.focus();
  }

  /** Someone changed the record meanwhile: show theirs beside ours, overwrite nothing. */
  async function conflict(mine, error) {
    let theirs = null;
    try {
      theirs = (await call("read", { scope, id })).record;
    } catch {
      theirs = null;
    }
    fill(
      notice,
      h(
        "div",
        { class: "banner error", role: "alert" },
        h("strong", {}, "Not saved: someone else changed this record meanwhile. "),
        error.message,
        theirs ? diffTable(`their version ${theirs.version}`, "your edit", recordText(theirs), recordText(mine)) : null,
        h("div", { class: "actions" }, h("button", { type: "button", onclick: () => recordPage(page, scope, id) }, "Reload their version")),
      ),
    );
  }

  async function remove() {
    if (!confirm(`Delete ${record.id}?${session.has("history.undelete") ? " It can be undeleted." : " This cannot be undone."}`)) return;
    try {
      await call("delete", { scope, id, expected_version: record.version });
      announce(`Deleted ${record.id}.`, "ok");
      refreshTree();
      await recordPage(page, scope, id);
    } catch (e) {
      announce(`${e.code}: ${e.message}`, "error");
    }
  }

  async function undelete() {
    try {
      const result = await call("history.undelete", { scope, id });
      announce(`Undeleted ${record.id} as version ${result.record?.version ?? ""}.`, "ok");
      refreshTree();
      await recordPage(page, scope, id);
    } catch (e) {
      announce(`${e.code}: ${e.message}`, "error");
    }
  }

  function history(versions) {
    const section = h("div", { id: "history" });
    const table = h(
      "table",
      { "aria-label": "Versions" },
      h("thead", {}, h("tr", {}, ["Version", "When", "Who", "State", ""].map((t) => h("th", { scope: "col" }, t)))),
      h(
        "tbody",
        {},
        versions.map((v, i) =>
          h(
            "tr",
            {},
            h("td", {}, v.version),
            h("td", {}, when(v.written_at)),
            h("td", {}, v.writer ?? v.record?.provenance?.agent ?? ""),
            h("td", {}, v.deleted ? h("span", { class: "badge deleted" }, "deleted") : i === 0 ? "current" : ""),
            h(
              "td",
              {},
              i > 0 && !v.deleted && session.has("history.restore")
                ? h("button", { type: "button", onclick: () => restore(v.version) }, `Restore version ${v.version}`)
                : null,
            ),
          ),
        ),
      ),
    );
    const live = versions.filter((v) => v.record);
    const options = (selected) => live.map((v) => h("option", { value: v.version, selected: v.version === selected }, `version ${v.version}${v.deleted ? " (deleted)" : ""}`));
    const left = h("select", { name: "left" }, options(live[1]?.version ?? live[0]?.version));
    const right = h("select", { name: "right" }, options(live[0]?.version));
    const view = h("div", { id: "diff" });
    const show = () => {
      const a = live.find((v) => String(v.version) === left.value);
      const b = live.find((v) => String(v.version) === right.value);
      if (a && b) fill(view, diffTable(`version ${a.version}`, `version ${b.version}`, recordText(a.record), recordText(b.record)));
    };
    left.addEventListener("change", show);
    right.addEventListener("change", show);
    fill(section, table, h("h3", {}, "Compare two versions"), h("div", { class: "filters" }, field("From", left), field("To", right)), view);
    show();
    return section;
  }

  async function restore(version) {
    if (!confirm(`Restore version ${version} of ${record.id}? It becomes a new current version.`)) return;
    try {
      const result = await call("history.restore", { scope, id, version });
      announce(`Restored version ${version} as version ${result.record?.version ?? ""}.`, "ok");
      await recordPage(page, scope, id);
    } catch (e) {
      announce(`${e.code}: ${e.message}`, "error");
    }
  }

  page.onChange = (event) => {
    if (event.id !== id || canonical(event.scope) !== scopeText || event.version === record.version) return;
    fill(
      notice,
      h(
        "p",
        { class: "banner warn" },
        `Changed meanwhile: version ${event.version} (${event.kind}) by ${event.agent}. `,
        h("button", { type: "button", onclick: () => recordPage(page, scope, id) }, "Show it"),
      ),
    );
  };
}

function fields(record) {
  const list = h("dl", { class: "fields" });
  for (const [key, value] of Object.entries(record)) {
    if (key === "provenance") continue;
    let shown;
    if (key === "scope") shown = h("a", { href: href("scope", canonical(value)) }, canonical(value));
    else if (key === "tags" && Array.isArray(value)) shown = value.map((t) => h("span", { class: "tag" }, t));
    else if (key.endsWith("_at")) shown = when(value);
    else if (typeof value === "number" || typeof value === "boolean") shown = String(value);
    else if (typeof value === "string") shown = key === "content" ? h("pre", { id: "record-content" }, value) : value;
    else shown = h("pre", {}, JSON.stringify(value, null, 2));
    list.append(h("dt", {}, key), h("dd", {}, shown));
  }
  return list;
}

function provenance(record) {
  const p = record.provenance ?? {};
  const list = h("dl", { class: "fields", id: "provenance" });
  for (const key of ["agent", "session", "origin", "principal", "created_at"]) {
    list.append(h("dt", {}, key), h("dd", {}, key === "created_at" ? when(p[key]) : p[key] ?? h("span", { class: "muted" }, "—")));
  }
  for (const [key, value] of Object.entries(p)) {
    if (!["agent", "session", "origin", "principal", "created_at"].includes(key)) {
      list.append(h("dt", {}, key), h("dd", {}, typeof value === "string" ? value : JSON.stringify(value)));
    }
  }
  return list;
}

async function followReferences(list, scope, named) {
  for (const { relation, value } of named) {
    const item = h("li", {}, `${relation}: `, h("code", {}, String(value)));
    list.append(item);
    const to = target(scope, value);
    if (!to) continue;
    try {
      const found = (await call("read", { scope: to.scope, id: to.id })).record;
      const summary = found.title ?? (typeof found.content === "string" ? found.content.split("\n")[0].slice(0, 100) : "");
      fill(item, `${relation}: `, h("a", { href: href("record", canonical(found.scope), found.id) }, `${found.type} ${found.id}`), summary ? ` — ${summary}` : "");
    } catch (e) {
      item.append(h("span", { class: "muted" }, ` (${e.code === "not_found" ? "not found" : e.code === "forbidden" ? "outside your grants" : e.message})`));
    }
  }
}

function referenced(record, read) {
  const reference = record.reference;
  const box = h("div", {});
  box.append(h("pre", {}, JSON.stringify(reference, null, 2)));
  if (reference.kind !== "content-hash" || !reference.hash) return box;
  if (read && typeof read.content === "string") box.append(h("pre", { id: "referenced-content" }, read.content));
  else if (read?.unresolved) box.append(h("p", { class: "muted" }, `Not held here: ${read.unresolved}`));
  box.append(
    h(
      "button",
      {
        type: "button",
        onclick: async () => {
          try {
            const blob = await content(reference.hash);
            const link = h("a", { href: URL.createObjectURL(blob), download: `${record.id}-${reference.hash.slice(0, 12)}` });
            document.body.append(link);
            link.click();
            link.remove();
          } catch (e) {
            announce(`${e.code ?? "error"}: ${e.message}`, "error");
          }
        },
      },
      "Download content",
    ),
  );
  return box;
}
