// The console's only way to the server: the public HTTP API of the origin that served it.
const TOKEN_KEY = "sgm.console.token";

/** An error object of the API ({code, message, details}) with the HTTP status. */
export class ApiError extends Error {
  constructor(status, error) {
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error?.code ?? "internal";
    this.details = error?.details ?? [];
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function headers(extra = {}) {
  const all = { ...extra };
  const bearer = token();
  if (bearer) all.Authorization = `Bearer ${bearer}`;
  return all;
}

async function answer(response) {
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiError(response.status, { code: "internal", message: text.slice(0, 200) });
  }
  if (!response.ok) {
    const error = new ApiError(response.status, json.error);
    if (response.status === 401) window.dispatchEvent(new CustomEvent("sgm-unauthenticated"));
    throw error;
  }
  return json;
}

/** Runs one operation: POST /v1/{op}. */
export async function call(operation, request = {}) {
  const response = await fetch(`/v1/${operation}`, {
    method: "POST",
    headers: headers({ "Content-Type": "application/json" }),
    body: JSON.stringify(request),
  });
  return answer(response);
}

export async function discovery() {
  return answer(await fetch("/v1/discovery", { headers: headers() }));
}

/** Content kept by hash, as a Blob. */
export async function content(hash) {
  const response = await fetch(`/v1/content/${hash}`, { headers: headers() });
  if (!response.ok) await answer(response);
  return response.blob();
}

/**
 * Follows /v1/watch. EventSource cannot send an Authorization header, so the stream is read with
 * fetch and parsed here; a dropped stream reconnects with Last-Event-ID, so nothing is missed.
 * Returns a function that stops it.
 */
export function watch(scopeCanonical, scopeMode, onEvent, onState = () => {}) {
  const controller = new AbortController();
  let last = null;
  let stopped = false;
  async function run() {
    while (!stopped) {
      try {
        const query = new URLSearchParams({ scope: scopeCanonical, scope_mode: scopeMode });
        const extra = last ? { "Last-Event-ID": last } : {};
        const response = await fetch(`/v1/watch?${query}`, {
          headers: headers({ Accept: "text/event-stream", ...extra }),
          signal: controller.signal,
        });
        if (!response.ok) {
          onState("off");
          return;
        }
        onState("live");
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event = { type: "message", data: "", id: null };
            for (const line of frame.split("\n")) {
              if (line.startsWith("id: ")) event.id = line.slice(4);
              else if (line.startsWith("event: ")) event.type = line.slice(7);
              else if (line.startsWith("data: ")) event.data += line.slice(6);
            }
            if (event.id) last = event.id;
            if (event.type === "message" && event.data) onEvent(JSON.parse(event.data));
          }
        }
      } catch (e) {
        if (stopped) return;
      }
      onState("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  run();
  return () => {
    stopped = true;
    controller.abort();
  };
}
