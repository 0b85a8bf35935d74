// Scopes as the contract writes them: canonical strings (keys sorted, "k=v" joined by ";", with
// % ; = : / percent-encoded in values), the form URLs and the watch endpoint use.

export function canonical(scope) {
  return Object.keys(scope)
    .sort()
    .map((key) => `${key}=${String(scope[key]).replace(/[%;=:/]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"))}`)
    .join(";");
}

export function parse(text) {
  const scope = {};
  for (const pair of text.split(";")) {
    const at = pair.indexOf("=");
    if (at > 0) scope[pair.slice(0, at)] = decodeURIComponent(pair.slice(at + 1));
  }
  return scope;
}

/** True when narrower has every pair of broader (and so lies within it). */
export function contains(broader, narrower) {
  return Object.entries(broader).every(([key, value]) => narrower[key] === value);
}

/** A short human label: "alpha / session s1". */
export function label(scope) {
  const parts = [];
  if (scope.project) parts.push(scope.project);
  for (const [key, value] of Object.entries(scope)) {
    if (key !== "project") parts.push(`${key} ${value}`);
  }
  return parts.join(" / ");
}

/** A fully-qualified reference "{canonical}:{id}" split at the first colon. */
export function parseQualified(reference) {
  const at = reference.indexOf(":");
  if (at < 0) return null;
  return { scope: parse(reference.slice(0, at)), id: reference.slice(at + 1) };
}
