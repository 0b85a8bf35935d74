// The scope tree: projects, and under each the narrower scopes (sessions...), with record counts.
import { call } from "../api.js";
import { field, fill, h } from "../dom.js";
import { canonical, label } from "../scope.js";
import { href, session, setMe } from "../app.js";

/** Groups the flat, sorted listing of the scopes operation into projects and their narrower scopes. */
export function tree(listing) {
  const projects = new Map();
  for (const item of listing.scopes) {
    const key = item.scope.project ?? "(no project)";
    if (!projects.has(key)) projects.set(key, { name: key, own: null, narrower: [], total: 0 });
    const project = projects.get(key);
    project.total += item.records;
    const keys = Object.keys(item.scope);
    if (item.scope.project !== undefined && keys.length === 1) project.own = item;
    else project.narrower.push(item);
  }
  return [...projects.values()];
}

function narrowerLabel(scope) {
  return Object.entries(scope)
    .filter(([key]) => key !== "project")
    .map(([key, value]) => `${key} ${value}`)
    .join(", ");
}

export function renderTree(element, listing) {
  const projects = tree(listing);
  if (projects.length === 0) {
    fill(element, h("p", { class: "muted" }, "No records yet."));
    return;
  }
  fill(
    element,
    h("h2", { id: "tree-title" }, "Scopes"),
    h(
      "ul",
      { "aria-labelledby": "tree-title" },
      projects.map((project) => {
        const projectScope = project.name === "(no project)" ? null : canonical({ project: project.name });
        return h(
          "li",
          {},
          projectScope
            ? h("a", { href: href("scope", projectScope), "data-scope": projectScope }, project.name)
            : h("span", {}, project.name),
          h("span", { class: "count", "aria-label": `${project.total} records` }, project.total),
          project.narrower.length
            ? h(
                "ul",
                {},
                project.narrower.map((item) => {
                  const text = canonical(item.scope);
                  return h(
                    "li",
                    {},
                    h("a", { href: href("scope", text), "data-scope": text }, narrowerLabel(item.scope) || label(item.scope)),
                    h("span", { class: "count", "aria-label": `${item.records} records` }, item.records),
                  );
                }),
              )
            : null,
        );
      }),
    ),
  );
}

export async function scopesPage(page) {
  const listing = session.has("scopes") ? await call("scopes", { limit: 10000 }) : { scopes: [], total_records: 0, total_scopes: 0 };
  const rows = listing.scopes.map((item) => {
    const text = canonical(item.scope);
    return h(
      "tr",
      {},
      h("td", {}, h("a", { href: href("scope", text) }, label(item.scope))),
      h("td", {}, h("code", {}, text)),
      h("td", {}, item.records),
      h("td", {}, Object.entries(item.types).map(([type, count]) => h("span", { class: "tag" }, `${type} ${count}`))),
    );
  });
  const name = h("input", { type: "text", value: session.me, autocomplete: "name" });
  const who = session.whoami?.owner
    ? h(
        "form",
        {
          class: "filters",
          onsubmit: (event) => {
            event.preventDefault();
            if (name.value.trim()) setMe(name.value.trim());
          },
        },
        field("Your name (the agent your corrections are written as)", name),
        h("button", { type: "submit" }, "Save name"),
      )
    : h("p", { class: "muted" }, `Signed in as ${session.whoami?.principal}; corrections are written as agent ${session.me}.`);
  fill(
    page.element,
    h("h1", {}, "Scopes"),
    h("p", { class: "muted" }, `${listing.total_records} records in ${listing.total_scopes} scopes you may read.`),
    who,
    rows.length
      ? h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Scope"), h("th", {}, "Canonical"), h("th", {}, "Records"), h("th", {}, "Types"))), h("tbody", {}, rows))
      : h("p", {}, "Nothing stored yet. Agents write here through MCP, gRPC, HTTP or the command line."),
  );
}
