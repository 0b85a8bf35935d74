// The console's shell: sign-in, the scope tree, the sections, hash routing and live updates.
import { ApiError, call, discovery, setToken, token, watch } from "./api.js";
import { announce, fill, h } from "./dom.js";
import { canonical, parse } from "./scope.js";
import { scopesPage, renderTree } from "./pages/scopes.js";
import { recordsPage } from "./pages/records.js";
import { recordPage } from "./pages/record.js";
import { collaborationPage } from "./pages/collaboration.js";
import { snapshotsPage } from "./pages/snapshots.js";

/** What every page may read: discovery, who the server takes us for, and the person's name. */
export const session = {
  discovery: null,
  whoami: null,
  /** The agent name corrections are written as: the token's principal, or the local person. */
  me: "console",
  has(operation) {
    return (this.discovery?.operations ?? []).some((op) => op.name === operation);
  },
  watchable() {
    return (this.discovery?.capabilities ?? []).includes("http") && this.has("changes");
  },
};

const main = () => document.getElementById("main");
let stopWatch = null;
let watchedScope = null;
let current = { onChange: null };

/** Parses location.hash: "#/scope/project=a?type=note" → {parts: ["scope", "project=a"], params}. */
function route() {
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path, query = ""] = hash.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { parts, params: new URLSearchParams(query) };
}

/** A link to a route: href("scope", canonical, {type: "note"}). */
export function href(...parts) {
  let params = null;
  if (parts.length && typeof parts[parts.length - 1] === "object") params = parts.pop();
  const query = params ? new URLSearchParams(Object.entries(params).filter(([, v]) => v !== "" && v != null)).toString() : "";
  return "#/" + parts.map(encodeURIComponent).join("/") + (query ? `?${query}` : "");
}

function sections(scopeText) {
  const links = [["Scopes", href()]];
  if (scopeText) {
    links.push(["Records", href("scope", scopeText)]);
    if (session.has("tasks.claim")) links.push(["Collaboration", href("collab", scopeText)]);
    if (session.has("snapshots.list")) links.push(["Snapshots", href("snapshots", scopeText)]);
  }
  const here = location.hash || "#/";
  fill(
    document.getElementById("sections"),
    links.map(([text, link]) => h("a", { href: link, "aria-current": here.split("?")[0] === link ? "page" : null }, text)),
  );
}

/** The scope the current route is about, as a canonical string, or null. */
function routeScope(parts) {
  return ["scope", "record", "collab", "snapshots"].includes(parts[0]) && parts[1] ? parts[1] : null;
}

async function render() {
  const { parts, params } = route();
  const scopeText = routeScope(parts);
  sections(scopeText);
  follow(scopeText);
  const mine = { onChange: null };
  current = mine;
  const target = main();
  // "shown" is false once the person has gone to another page: a re-render a change scheduled
  // must not draw this page over that one.
  const page = { element: target, params, set onChange(fn) { mine.onChange = fn; }, get shown() { return current === mine; } };
  try {
    if (parts[0] === "scope" && scopeText) await recordsPage(page, parse(scopeText));
    else if (parts[0] === "record" && scopeText && parts[2]) await recordPage(page, parse(scopeText), parts[2]);
    else if (parts[0] === "collab" && scopeText) await collaborationPage(page, parse(scopeText));
    else if (parts[0] === "snapshots" && scopeText) await snapshotsPage(page, parse(scopeText));
    else await scopesPage(page);
  } catch (e) {
    showError(target, e);
  }
  markTree(scopeText);
}

export function showError(target, e) {
  if (e instanceof ApiError && e.status === 401) {
    fill(target, h("h1", {}, "Sign in"), h("p", {}, "This server needs an access token."), h("button", { type: "button", onclick: askToken }, "Sign in"));
    return;
  }
  const message = e instanceof ApiError ? `${e.code}: ${e.message}` : String(e?.message ?? e);
  fill(target, h("h1", {}, "Something went wrong"), h("p", { class: "banner error" }, message));
}

function markTree(scopeText) {
  for (const link of document.querySelectorAll("#tree a[data-scope]")) {
    link.setAttribute("aria-current", link.dataset.scope === scopeText ? "true" : "false");
  }
}

/** Refreshes the scope tree in the sidebar (the scopes operation: counts within our grants). */
export async function refreshTree() {
  const tree = document.getElementById("tree");
  if (!session.has("scopes")) {
    fill(tree, h("p", { class: "muted" }, "This server does not list its scopes."));
    return;
  }
  try {
    renderTree(tree, await call("scopes", { limit: 10000 }));
    markTree(routeScope(route().parts));
  } catch (e) {
    fill(tree, h("p", { class: "muted" }, e instanceof ApiError ? e.message : String(e)));
  }
}

/** Follows the change feed of the scope on screen (and narrower ones), when the server has watch. */
function follow(scopeText) {
  const live = document.getElementById("live");
  if (scopeText === watchedScope) return;
  if (stopWatch) stopWatch();
  stopWatch = null;
  watchedScope = scopeText;
  live.className = "live";
  live.textContent = LIVE_TEXT.off;
  if (!scopeText || !session.watchable()) return;
  let timer = null;
  stopWatch = watch(
    scopeText,
    "descendants",
    (event) => {
      if (current.onChange) current.onChange(event);
      clearTimeout(timer);
      timer = setTimeout(refreshTree, 500);
    },
    (state) => {
      live.className = state === "live" ? "live on" : "live";
      live.textContent = LIVE_TEXT[state] ?? state;
    },
  );
}

/** What the page header says of its change feed, by the watch's state. */
const LIVE_TEXT = { live: "live", off: "not live", reconnecting: "reconnecting…" };

function askToken() {
  const dialog = document.getElementById("token-dialog");
  document.getElementById("token-input").value = "";
  if (!dialog.open) dialog.showModal();
}

async function start() {
  const dialog = document.getElementById("token-dialog");
  document.getElementById("token-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    setToken(document.getElementById("token-input").value.trim());
    dialog.close();
    await boot();
  });
  document.getElementById("token-cancel").addEventListener("click", () => dialog.close());
  document.getElementById("sign-in").addEventListener("click", () => {
    if (token()) {
      setToken(null);
      boot();
    } else askToken();
  });
  window.addEventListener("sgm-unauthenticated", askToken);
  window.addEventListener("hashchange", () => {
    render();
    main().focus();
  });
  await boot();
}

/** Learns what the server offers and who we are, then draws the page. */
async function boot() {
  const signIn = document.getElementById("sign-in");
  signIn.textContent = token() ? "Sign out" : "Sign in";
  try {
    session.discovery = await discovery();
    session.whoami = await call("whoami", {});
    const agents = session.whoami.agents ?? [];
    const principal = session.whoami.principal;
    session.me = session.whoami.owner || agents.includes("*") || agents.includes(principal) || agents.length === 0 ? principal : agents[0];
    if (session.whoami.owner) session.me = localStorage.getItem("sgm.console.me") || "console-user";
    fill(document.getElementById("identity"), `as ${session.me}`);
    // A server that answered without a token has no one to sign in: no button to press.
    signIn.hidden = !token();
  } catch (e) {
    signIn.hidden = false;
    session.discovery = null;
    fill(document.getElementById("identity"), "");
    fill(document.getElementById("tree"), h("p", { class: "muted" }, "Sign in to see the scopes."));
    showError(main(), e);
    if (e instanceof ApiError && e.status === 401) askToken();
    return;
  }
  watchedScope = undefined;
  await Promise.all([render(), refreshTree()]);
}

export function setMe(name) {
  session.me = name;
  localStorage.setItem("sgm.console.me", name);
  fill(document.getElementById("identity"), `as ${name}`);
}

export { announce, canonical };
start();
