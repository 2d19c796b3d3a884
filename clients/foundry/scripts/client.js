// Arbiter's public HTTP API, on fetch: calls answering JSON or problem+json, and a session's
// live events (server-sent events read from a streamed body, so that the bearer token goes in
// a header and `Last-Event-ID` resumes where the stream was left).

/** An answer that was not a success: the problem+json Arbiter sent, or what stood in for it. */
export class ArbiterError extends Error {
  /**
   * @param {number} status
   * @param {{title?: string, detail?: string, type?: string}} problem
   */
  constructor(status, problem) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
    this.name = "ArbiterError";
    this.status = status;
    this.problem = problem;
  }
}

/**
 * One call. `token` goes as `Authorization: Bearer`; a change carries an Idempotency-Key so
 * that a retry after a lost answer changes nothing twice; `language` (the Foundry client's,
 * `game.i18n.lang`) goes as `Accept-Language`, the language Arbiter writes its summaries in.
 * @param {string} base the service's URL, e.g. "https://arbiter.example"
 * @param {string} method
 * @param {string} path under the base, e.g. "/v1/gurps/quick-contest"
 * @param {{body?: unknown, token?: string, key?: string, language?: string, fetch?: typeof fetch}} [options]
 * @returns {Promise<any>} the JSON answer (null for 204)
 */
export async function call(base, method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.language) headers["accept-language"] = options.language;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET") headers["idempotency-key"] = options.key ?? crypto.randomUUID();
  const send = options.fetch ?? globalThis.fetch;
  const answer = await send(joinUrl(base, path), {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (answer.status === 204) return null;
  const text = await answer.text();
  /** @type {any} */
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { detail: text.slice(0, 200) };
  }
  if (!answer.ok) throw new ArbiterError(answer.status, parsed ?? {});
  return parsed;
}

/**
 * @param {string} base
 * @param {string} path
 */
export function joinUrl(base, path) {
  return `${base.replace(/\/+$/, "")}${path}`;
}

/**
 * @typedef {{event: string, id: string | null, data: string}} ServerEvent
 */

/** Reads a text/event-stream as it arrives, in chunks cut anywhere. */
export class EventParser {
  constructor() {
    this.buffer = "";
    /** @type {string[]} */
    this.data = [];
    this.event = "";
    /** @type {string | null} */
    this.lastEventId = null;
    /** @type {number | null} */
    this.retry = null;
  }

  /**
   * @param {string} chunk
   * @returns {ServerEvent[]} the events this chunk completed
   */
  push(chunk) {
    this.buffer += chunk;
    /** @type {ServerEvent[]} */
    const events = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (match === null) break;
      // A lone CR at the end may be the first half of a CRLF: wait for the next chunk.
      if (match[0] === "\r" && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event !== null) events.push(event);
    }
    return events;
  }

  /**
   * @param {string} line
   * @returns {ServerEvent | null}
   */
  line(line) {
    if (line === "") {
      if (this.data.length === 0) {
        this.event = "";
        return null;
      }
      const event = { event: this.event || "message", id: this.lastEventId, data: this.data.join("\n") };
      this.data = [];
      this.event = "";
      return event;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id" && !value.includes("\0")) this.lastEventId = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retry = Number(value);
    return null;
  }
}

/**
 * Follows a session's live events until `signal` aborts or the session is deleted, reconnecting
 * after a dropped connection with the last id seen (`Last-Event-ID`), so nothing is lost or
 * repeated. `onEvent` gets each event's name, id and parsed data, in order.
 * @param {{base: string, kind: string, id: string, token: string, lastEventId?: string | null,
 *   language?: string,
 *   onEvent: (event: {event: string, id: string | null, data: any}) => unknown | Promise<unknown>,
 *   onError?: (error: unknown) => void, signal?: AbortSignal, fetch?: typeof fetch,
 *   retryMs?: number}} options
 * @returns {Promise<string | null>} the last event id read, once the stream is over
 */
export async function follow(options) {
  const send = options.fetch ?? globalThis.fetch;
  let lastEventId = options.lastEventId ?? null;
  let retry = options.retryMs ?? 1000;
  const path = `/v1/${options.kind}/${encodeURIComponent(options.id)}/events`;
  while (!options.signal?.aborted) {
    const parser = new EventParser();
    parser.lastEventId = lastEventId;
    try {
      /** @type {Record<string, string>} */
      const headers = { accept: "text/event-stream", authorization: `Bearer ${options.token}` };
      if (lastEventId !== null) headers["last-event-id"] = lastEventId;
      if (options.language) headers["accept-language"] = options.language;
      const answer = await send(joinUrl(options.base, path), { headers, signal: options.signal });
      if (!answer.ok || answer.body === null) {
        const problem = await answer.json().catch(() => ({}));
        const error = new ArbiterError(answer.status, problem);
        // A session gone, or a token it does not know: following it again cannot help.
        if (answer.status === 401 || answer.status === 403 || answer.status === 404) throw error;
        options.onError?.(error);
      } else {
        const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const event of parser.push(value)) {
            await options.onEvent({ event: event.event, id: event.id, data: event.data ? JSON.parse(event.data) : null });
            lastEventId = event.id;
            if (event.event === "deleted") return lastEventId;
          }
        }
        if (parser.retry !== null) retry = parser.retry;
      }
    } catch (error) {
      if (options.signal?.aborted) break;
      if (error instanceof ArbiterError && [401, 403, 404].includes(error.status)) throw error;
      options.onError?.(error);
    }
    if (options.signal?.aborted) break;
    await new Promise((resolve) => setTimeout(resolve, retry));
  }
  return lastEventId;
}
