// Small helpers to build the page from data without ever parsing data as HTML: every text a record
// holds reaches the page through textContent, so stored content cannot inject markup or script.

/** An element: h("a", {href: "#/"}, "text", child, ...). Attributes starting with "on" are listeners. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === "class") {
      element.className = value;
    } else if (value === true) {
      element.setAttribute(name, "");
    } else {
      element.setAttribute(name, String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of an element. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

let ids = 0;
/** A fresh id for label/input pairs. */
export function uid(prefix = "f") {
  ids += 1;
  return `${prefix}-${ids}`;
}

/** A labelled input (or select or textarea): [label, control]. */
export function field(labelText, control) {
  if (!control.id) control.id = uid();
  return h("div", { class: "field" }, h("label", { for: control.id }, labelText), control);
}

/** A timestamp as the person reads it, with the exact value in the title. */
export function when(iso) {
  if (!iso) return h("span", { class: "muted" }, "—");
  const date = new Date(iso);
  return h("time", { datetime: iso, title: iso }, isNaN(date) ? iso : date.toLocaleString());
}

/** Announces a message to screen readers and shows it in the status line. */
export function announce(message, kind = "info") {
  const status = document.getElementById("status");
  status.className = `status ${kind}`;
  status.textContent = message;
}
