// Snapshots of a scope: make one, and restore one after a confirmation listing what will change.
import { call } from "../api.js";
import { announce, field, fill, h, when } from "../dom.js";
import { canonical, label } from "../scope.js";
import { href, refreshTree } from "../app.js";

/** Every record of a retrieve-like call, 1000 at a time (a snapshot restore covers them all). */
async function everything(fetchPage) {
  const records = [];
  let cursor;
  do {
    const page = await fetchPage(cursor);
    records.push(...page.records);
    cursor = page.next_cursor;
  } while (cursor && records.length < 100000);
  return records;
}

/** What restoring the snapshot would do, record by record: the rule snapshots.restore applies. */
export function plan(then, now) {
  const key = (r) => canonical(r.scope) + ":" + r.id;
  const before = new Map(then.map((r) => [key(r), r]));
  const current = new Map(now.map((r) => [key(r), r]));
  const changes = [];
  for (const [k, past] of before) {
    const present = current.get(k);
    if (!present) changes.push({ kind: "comes back", record: past, detail: `version ${past.version}` });
    else if (present.version !== past.version) changes.push({ kind: "goes back", record: present, detail: `from version ${present.version} to the content of version ${past.version}` });
  }
  for (const [k, present] of current) {
    if (!before.has(k)) changes.push({ kind: "is deleted", record: present, detail: "created after the snapshot" });
  }
  return changes;
}

export async function snapshotsPage(page, scope) {
  const element = page.element;
  const list = (await call("snapshots.list", { scope })).snapshots ?? [];
  const name = h("input", { type: "text", name: "name", required: true, size: 24 });
  const descendants = h("input", { type: "checkbox", name: "descendants" });
  const create = h(
    "form",
    { class: "filters", "aria-label": "Create a snapshot" },
    field("Snapshot name", name),
    h("div", { class: "field" }, h("label", {}, descendants, " with narrower scopes")),
    h("button", { type: "submit", class: "primary" }, "Create snapshot"),
  );
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await call("snapshots.create", { scope, name: name.value.trim(), descendants: descendants.checked });
      announce(`Snapshot ${name.value.trim()} created.`, "ok");
      await snapshotsPage(page, scope);
    } catch (e) {
      announce(`${e.code}: ${e.message}`, "error");
    }
  });
  const confirmation = h("div", { id: "restore-plan", "aria-live": "polite" });
  const preview = async (snapshot) => {
    const mode = snapshot.descendants ? "descendants" : "exact";
    const [then, now] = await Promise.all([
      everything((cursor) => call("snapshots.retrieve", { snapshot: { scope: snapshot.scope, name: snapshot.name }, query: { scope: snapshot.scope, scope_mode: mode, limit: 1000, ...(cursor ? { cursor } : {}) } })),
      everything((cursor) => call("retrieve", { scope: snapshot.scope, scope_mode: mode, limit: 1000, ...(cursor ? { cursor } : {}) })),
    ]);
    const changes = plan(then, now);
    fill(
      confirmation,
      h(
        "div",
        { class: "banner warn", role: "region", "aria-label": "Restore confirmation" },
        h("h2", {}, `Restore ${snapshot.name}?`),
        changes.length === 0
          ? h("p", {}, "Nothing would change: the scope is as it was at the snapshot.")
          : [
              h("p", {}, `${changes.length} records will change:`),
              h("ul", {}, changes.map((c) => h("li", {}, h("a", { href: href("record", canonical(c.record.scope), c.record.id) }, c.record.id), ` ${c.kind} (${c.detail})`))),
            ],
        h(
          "div",
          { class: "actions" },
          h(
            "button",
            {
              type: "button",
              class: "danger",
              disabled: changes.length === 0,
              onclick: async () => {
                try {
                  const result = await call("snapshots.restore", { scope: snapshot.scope, name: snapshot.name });
                  announce(`Restored ${snapshot.name}: ${JSON.stringify(result)}`, "ok");
                  refreshTree();
                  await snapshotsPage(page, scope);
                } catch (e) {
                  announce(`${e.code}: ${e.message}`, "error");
                }
              },
            },
            "Restore now",
          ),
          h("button", { type: "button", onclick: () => fill(confirmation) }, "Cancel"),
        ),
      ),
    );
    confirmation.querySelector("button").focus();
  };
  fill(
    element,
    h("h1", {}, `Snapshots of ${label(scope)}`),
    create,
    list.length === 0
      ? h("p", { class: "muted" }, "No snapshots yet.")
      : h(
          "table",
          {},
          h("thead", {}, h("tr", {}, ["Name", "Taken", "By", "Covers", ""].map((t) => h("th", { scope: "col" }, t)))),
          h(
            "tbody",
            {},
            list.map((s) =>
              h(
                "tr",
                {},
                h("td", {}, s.name),
                h("td", {}, when(s.created_at)),
                h("td", {}, s.created_by ?? ""),
                h("td", {}, s.descendants ? "with narrower scopes" : "this scope"),
                h("td", {}, h("button", { type: "button", onclick: () => preview(s).catch((e) => announce(e.message, "error")) }, `Restore ${s.name}…`)),
              ),
            ),
          ),
        ),
    confirmation,
  );
}
