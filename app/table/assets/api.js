// Calls to Arbiter's API from the table page: JSON in and out, the bearer token in a header,
// every failure turned into an `ApiError` carrying the problem's `detail`, and a session's
// live events read over fetch (EventSource cannot send `Authorization`), resumed with
// `Last-Event-ID` after a dropped connection. Every call asks for the page's language
// (`Accept-Language`), so that summaries and problem details come back in it.

import { pageLanguage } from "./i18n.js";

/** A failed call: its status and the problem+json `detail` (or what went wrong instead). */
export class ApiError extends Error {
  constructor(status, detail, problem = null) {
    super(detail);
    this.status = status;
    this.detail = detail;
    this.problem = problem;
  }
}

/** The reason a failed answer gives, as one line a person can read. */
async function problemOf(response) {
  let problem = null;
  try {
    problem = await response.json();
  } catch {
    // not JSON: the status says it
  }
  let detail = problem && typeof problem.detail === "string" ? problem.detail : null;
  if (problem && Array.isArray(problem.errors) && problem.errors.length > 0 && !detail) {
    detail = problem.errors.map((error) => `${error.loc.join(".")}: ${error.msg}`).join("; ");
  }
  return new ApiError(response.status, detail || `${response.status} ${response.statusText}`, problem);
}

/** One call: `method` on `path` with a JSON `body`; answers `{status, body, etag}`. */
export async function call(method, path, { token = null, body = undefined, accept = "application/json", ifMatch = null } = {}) {
  const headers = { accept, "accept-language": pageLanguage() };
  if (token) headers.authorization = `Bearer ${token}`;
  if (ifMatch !== null) headers["if-match"] = `"${ifMatch}"`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "The service cannot be reached: check the connection and try again.");
  }
  if (!response.ok) throw await problemOf(response);
  const text = response.status === 204 ? "" : await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, etag: response.headers.get("etag") };
}

/** A `text/event-stream` parser (the HTML standard's rules), fed chunks of text. */
class EventParser {
  constructor(lastEventId) {
    this.lastEventId = lastEventId;
    this.retry = null;
    this.pending = "";
    this.data = [];
    this.name = "";
  }

  push(text) {
    this.pending += text;
    const events = [];
    const ending = /\r\n|\r|\n/g;
    let start = 0;
    for (let found = ending.exec(this.pending); found !== null; found = ending.exec(this.pending)) {
      if (found[0] === "\r" && found.index === this.pending.length - 1) break;
      const event = this.line(this.pending.slice(start, found.index));
      if (event !== null) events.push(event);
      start = found.index + found[0].length;
    }
    this.pending = this.pending.slice(start);
    return events;
  }

  line(line) {
    if (line === "") {
      const data = this.data;
      const name = this.name;
      this.data = [];
      this.name = "";
      if (data.length === 0) return null;
      return { event: name || "message", id: this.lastEventId, data: data.join("\n") };
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") this.data.push(value);
    else if (field === "event") this.name = value;
    else if (field === "id" && !value.includes("\0")) this.lastEventId = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retry = Number(value);
    return null;
  }
}

/** Statuses worth trying again: the service or a proxy in front of it is away or busy. */
const RETRIED = new Set([0, 429, 502, 503, 504]);

/**
 * A session's live events: `onEvent(name, data, id)` for each, `onState("live" |
 * "disconnected", reason)` as the connection comes and goes, `onFatal(error)` for an answer
 * no retry mends (the session deleted, a token of no role). It reconnects by itself with
 * `Last-Event-ID`, so no event is lost or repeated.
 */
export class LiveEvents {
  constructor(path, token, { lastEventId = "", onEvent, onState, onFatal }) {
    this.path = path;
    this.token = token;
    this.lastEventId = lastEventId;
    this.onEvent = onEvent;
    this.onState = onState;
    this.onFatal = onFatal;
    this.stopped = false;
    this.aborter = null;
    this.delayMs = 500;
  }

  start() {
    this.loop();
  }

  stop() {
    this.stopped = true;
    if (this.aborter) this.aborter.abort();
  }

  /** Try again now, when waiting to reconnect (the browser is back on line). */
  retryNow() {
    if (this.wake) this.wake();
  }

  /** Drop the connection now (as a network drop would); the stream reconnects by itself. */
  drop() {
    if (this.aborter) this.aborter.abort();
  }

  async loop() {
    let failures = 0;
    while (!this.stopped) {
      let reason = "the stream ended";
      let retryAfter = null;
      try {
        for await (const event of this.connection()) {
          failures = 0;
          this.lastEventId = event.id;
          this.onEvent(event.event, JSON.parse(event.data), event.id);
          if (event.event === "deleted") {
            this.stopped = true;
            return;
          }
        }
      } catch (error) {
        if (this.stopped) return;
        if (error instanceof ApiError && !RETRIED.has(error.status)) {
          this.stopped = true;
          this.onFatal(error);
          return;
        }
        if (error instanceof ApiError && error.retryAfter) retryAfter = error.retryAfter;
        reason = error instanceof ApiError ? error.detail : "the connection dropped";
      }
      if (this.stopped) return;
      this.onState("disconnected", reason);
      const delay = retryAfter !== null ? retryAfter * 1000 : Math.min(10_000, this.delayMs * 2 ** failures);
      failures += 1;
      await new Promise((resolve) => {
        const timer = setTimeout(wake, delay / 2 + (Math.random() * delay) / 2);
        this.wake = wake;
        function wake() {
          clearTimeout(timer);
          resolve();
        }
      });
      this.wake = null;
    }
  }

  async *connection() {
    const headers = { accept: "text/event-stream", "accept-language": pageLanguage(), authorization: `Bearer ${this.token}` };
    if (this.lastEventId !== "") headers["last-event-id"] = this.lastEventId;
    this.aborter = new AbortController();
    let response;
    try {
      response = await fetch(this.path, { headers, signal: this.aborter.signal, cache: "no-store" });
    } catch {
      throw new ApiError(0, "the connection dropped");
    }
    if (!response.ok) {
      const error = await problemOf(response);
      const after = response.headers.get("retry-after");
      if (after && /^\d+$/.test(after)) error.retryAfter = Number(after);
      throw error;
    }
    this.onState("live", null);
    const parser = new EventParser(this.lastEventId);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        let chunk;
        try {
          chunk = await reader.read();
        } catch {
          throw new ApiError(0, "the connection dropped");
        }
        if (chunk.done) return;
        for (const event of parser.push(chunk.value)) yield event;
        if (parser.retry !== null) this.delayMs = parser.retry;
      }
    } finally {
      reader.cancel().catch(() => {});
    }
  }
}
