// A small typed client for Arbiter, for browsers and Node.js 20 (global fetch and ReadableStream,
// no dependencies): every call typed by the `paths` openapi-typescript generates from the
// service's /openapi.json (`npm run generate` writes them to arbiter.d.ts, beside this file),
// and a reader of a session's live events that sends the bearer token (a browser's EventSource
// cannot) and resumes with Last-Event-ID after a dropped connection.
//
//   const arbiter = new Arbiter("http://127.0.0.1:8000");
//   const created = await arbiter.call("post", "/v1/arm-wrestles", { body: { a: ..., b: ... } });
//   const live = arbiter.events("arm-wrestles", created.body.id, { token: created.body.tokens!.gm });
//   for await (const event of live) console.log(event.id, event.event, JSON.parse(event.data));
import type { components, paths } from "./arbiter";

export type Problem = components["schemas"]["Problem"];
export type Method = "get" | "put" | "post" | "delete" | "patch";
/** A path of the document. */
export type Path = keyof paths;

/** The operation `method` on `path`: never when the path does not serve that method. */
export type Operation<P extends Path, M extends Method> = Exclude<paths[P][M], undefined>;
/** The methods `path` serves. */
export type MethodOf<P extends Path> = {
  [M in Method]: [Operation<P, M>] extends [never] ? never : M;
}[Method];

type Parameters<O> = O extends { parameters: infer Declared } ? Declared : never;
type Part<O, Where extends string> =
  Parameters<O> extends { [Key in Where]: infer Declared } ? Declared
  : Parameters<O> extends { [Key in Where]?: infer Declared } ? Declared
  : never;
type Given<Value, Key extends string, Optional extends boolean> =
  [Value] extends [never] | [undefined] ? { [K in Key]?: never }
  : Optional extends true ? { [K in Key]?: Value }
  : { [K in Key]: Value };
type PathOption<O> =
  Parameters<O> extends { path: infer Declared } ? Given<Declared, "path", false>
  : { path?: never };
type QueryOption<O> =
  Parameters<O> extends { query: infer Declared } ? Given<Declared, "query", false>
  : Given<Part<O, "query">, "query", true>;
type BodyOption<O> =
  O extends { requestBody?: never } ? { body?: never }
  : O extends { requestBody: { content: { "application/json": infer Body } } } ? { body: Body }
  : O extends { requestBody?: { content: { "application/json": infer Body } } } ? { body?: Body }
  : { body?: never };

/** What a call takes besides its method and path: its path and query parameters, its JSON body,
 * its declared headers (`If-Match`, `Idempotency-Key`, …), the bearer token for it (else the
 * client's) and a signal to abort it. */
export type CallOptions<O> = PathOption<O> &
  QueryOption<O> &
  BodyOption<O> & {
    headers?: Part<O, "header">;
    token?: string;
    signal?: AbortSignal;
  };

type SuccessStatus = 200 | 201 | 202 | 204;
type Successes<O> = O extends { responses: infer Responses }
  ? { [Status in keyof Responses & SuccessStatus]: Responses[Status] }[keyof Responses & SuccessStatus]
  : never;
type JsonOf<Response> = Response extends { content: { "application/json": infer Body } } ? Body : undefined;
/** The JSON of the operation's answers that succeed (undefined for a 204). */
export type Answer<O> = JsonOf<Successes<O>>;

/** An answer that succeeded, with what its headers say of the session. */
export interface Reply<Body> {
  status: number;
  body: Body;
  headers: Headers;
  /** The session's version, from `ETag: "<version>"` (null when the answer has none). */
  version: number | null;
  /** True when the answer is a replay of one stored under the call's Idempotency-Key. */
  replayed: boolean;
}

/** Every error status answers problem+json; this carries it. */
export class ArbiterError extends Error {
  readonly status: number;
  readonly problem: Problem;
  readonly headers: Headers;
  /** Seconds to wait before retrying (429, 503), from `Retry-After`. */
  readonly retryAfter: number | null;

  constructor(status: number, problem: Problem, headers: Headers) {
    super(`${status} ${problem.title}: ${problem.detail ?? ""}`.trim());
    this.name = "ArbiterError";
    this.status = status;
    this.problem = problem;
    this.headers = headers;
    const retryAfter = headers.get("retry-after");
    this.retryAfter = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : null;
  }
}

/** `If-Match` for a version: `"<version>"`, the session's ETag. */
export function ifMatch(version: number): string {
  return `"${version}"`;
}

export interface ClientOptions {
  /** The bearer token of every call that names none of its own. */
  token?: string;
  /** The fetch to use (the global one by default). */
  fetch?: typeof fetch;
}

type Options<P extends Path, M extends Method> = CallOptions<Operation<P, M>>;
type OptionsArgument<P extends Path, M extends Method> =
  {} extends Options<P, M> ? [options?: Options<P, M>] : [options: Options<P, M>];

export class Arbiter {
  readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly fetcher: typeof fetch;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.token = options.token;
    // Bound: a browser's fetch called as a method of another object throws.
    this.fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** Call an operation: its JSON answer, or an `ArbiterError` carrying its problem+json. */
  async call<P extends Path, M extends MethodOf<P>>(
    method: M,
    path: P,
    ...[options]: OptionsArgument<P, M>
  ): Promise<Reply<Answer<Operation<P, M>>>> {
    // The types above are the caller's; within, one shape serves every operation.
    const given = (options ?? {}) as {
      path?: Record<string, string | number>;
      query?: Record<string, unknown>;
      body?: unknown;
      headers?: Record<string, string | undefined>;
      token?: string;
      signal?: AbortSignal;
    };
    const headers = new Headers({ accept: "application/json" });
    for (const [name, value] of Object.entries(given.headers ?? {})) {
      if (value !== undefined) headers.set(name, value);
    }
    const token = given.token ?? this.token;
    if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
    let body: string | undefined;
    if (given.body !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(given.body);
    }
    const response = await this.fetcher(this.url(path, given.path, given.query), {
      method: method.toUpperCase(),
      headers,
      body,
      signal: given.signal,
    });
    if (!response.ok) throw await problemOf(response);
    const text = await response.text();
    const etag = response.headers.get("etag");
    const version = etag !== null && /^"\d+"$/.test(etag) ? Number(etag.slice(1, -1)) : null;
    return {
      status: response.status,
      body: (text === "" ? undefined : JSON.parse(text)) as Answer<Operation<P, M>>,
      headers: response.headers,
      version,
      replayed: response.headers.get("idempotent-replayed") === "true",
    };
  }

  /** The live events of a session (`kind` is its collection: "arm-wrestles", "chases", …). */
  events(kind: string, sessionId: string, options: EventsOptions): LiveEvents {
    const url = `${this.baseUrl}/v1/${kind}/${encodeURIComponent(sessionId)}/events`;
    return new LiveEvents(url, { fetch: this.fetcher, ...options });
  }

  private url(
    path: string,
    parameters: Record<string, string | number> | undefined,
    query: Record<string, unknown> | undefined,
  ): string {
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = parameters?.[name];
      if (value === undefined) throw new TypeError(`${path}: no value for {${name}}`);
      return encodeURIComponent(String(value));
    });
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      // A JSON parameter (a chase's terrain) goes as its JSON text.
      search.set(name, typeof value === "object" ? JSON.stringify(value) : String(value));
    }
    const asked = search.toString();
    return this.baseUrl + filled + (asked === "" ? "" : `?${asked}`);
  }
}

async function problemOf(response: Response): Promise<ArbiterError> {
  const text = await response.text();
  let problem: Problem;
  try {
    problem = JSON.parse(text) as Problem;
  } catch {
    // Not from the service (a proxy's page): the same shape, from what the answer says.
    problem = { type: "about:blank", title: response.statusText, status: response.status, detail: text };
  }
  return new ArbiterError(response.status, problem, response.headers);
}

// -- Live events ---------------------------------------------------------------------------------

/** One server-sent event: its name (`event:`, "message" when none), the last `id:` seen on the
 * stream (the session's version after the change) and its `data:` lines joined by "\n". */
export interface ServerSentEvent {
  event: string;
  id: string;
  data: string;
}

/** An incremental `text/event-stream` parser (the HTML standard's rules): lines end in CRLF, LF
 * or CR, split anywhere between chunks; `data:` lines join with "\n"; an event is dispatched at
 * a blank line when it has data; `id:` carries over to later events; `: …` lines are comments
 * (keep-alives), handed to `onComment`. */
export class EventParser {
  /** The reconnection delay the stream asked for (`retry:`), in milliseconds. */
  retry: number | null = null;
  /** The last `id:` seen: what a reconnection sends as `Last-Event-ID`. */
  lastEventId: string;
  private pending = "";
  private started = false;
  private data: string[] = [];
  private name = "";
  private readonly decoder = new TextDecoder();
  private readonly onComment: (comment: string) => void;

  constructor(lastEventId = "", onComment: (comment: string) => void = () => {}) {
    this.lastEventId = lastEventId;
    this.onComment = onComment;
  }

  /** Read a chunk of the stream (bytes or text): the events it completes. */
  push(chunk: Uint8Array | string): ServerSentEvent[] {
    let text = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    if (!this.started && text !== "") {
      this.started = true;
      if (text.startsWith("\uFEFF")) text = text.slice(1);
    }
    this.pending += text;
    const events: ServerSentEvent[] = [];
    const ending = /\r\n|\r|\n/g;
    let start = 0;
    for (let found = ending.exec(this.pending); found !== null; found = ending.exec(this.pending)) {
      // A CR at the end of what has come may be the first half of a CRLF: wait for more.
      if (found[0] === "\r" && found.index === this.pending.length - 1) break;
      const event = this.line(this.pending.slice(start, found.index));
      if (event !== null) events.push(event);
      start = found.index + found[0].length;
    }
    this.pending = this.pending.slice(start);
    return events;
  }

  private line(line: string): ServerSentEvent | null {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) {
      this.onComment(line.slice(1).replace(/^ /, ""));
      return null;
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") this.data.push(value);
    else if (field === "event") this.name = value;
    else if (field === "id" && !value.includes("\0")) this.lastEventId = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retry = Number(value);
    return null;
  }

  private dispatch(): ServerSentEvent | null {
    const data = this.data;
    const name = this.name;
    this.data = [];
    this.name = "";
    if (data.length === 0) return null;
    return { event: name === "" ? "message" : name, id: this.lastEventId, data: data.join("\n") };
  }
}

export interface EventsOptions {
  /** Any token of the session. */
  token: string;
  /** Resume after this event (a version): only the changes after it come. */
  lastEventId?: string;
  /** The first reconnection's delay, doubled on each failed one up to `maxDelayMs` (with some
   * jitter); a stream's `retry:` replaces it. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** Called with each comment line (`keep-alive` every 15 s on an idle stream). */
  onComment?: (comment: string) => void;
  /** Called before each reconnection: why, and how long it waits. */
  onReconnect?: (reason: unknown, delayMs: number) => void;
  fetch?: typeof fetch;
}

/** Statuses worth retrying: the service or a proxy in front of it is away or busy. */
const RETRIED = new Set([429, 502, 503, 504]);

/** A session's live events, in order: `for await (const event of live)`. It reconnects after a
 * dropped connection or a stream the server ended (a restart), with `Last-Event-ID`, so no event
 * is lost or repeated; it ends after a `deleted` event, or when `stop()` is called, and throws an
 * `ArbiterError` for an answer that retrying cannot mend (401, 404). */
export class LiveEvents implements AsyncIterable<ServerSentEvent> {
  /** The `id` of the last event read ("" before the first). */
  lastEventId: string;
  /** How many times the stream has been opened. */
  connections = 0;
  private stopped = false;
  private readonly aborter = new AbortController();
  private readonly url: string;
  private readonly options: EventsOptions;
  private readonly fetcher: typeof fetch;
  private delayMs: number;

  constructor(url: string, options: EventsOptions) {
    this.url = url;
    this.options = options;
    this.lastEventId = options.lastEventId ?? "";
    this.delayMs = options.firstDelayMs ?? 500;
    this.fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** Stop reading: the connection closes, and the iteration ends. */
  stop(): void {
    this.stopped = true;
    this.aborter.abort();
  }

  [Symbol.asyncIterator](): AsyncIterator<ServerSentEvent> {
    return this.read();
  }

  private async *read(): AsyncGenerator<ServerSentEvent, void, undefined> {
    let failures = 0;
    try {
      while (!this.stopped) {
        let reason: unknown;
        try {
          for await (const event of this.connection()) {
            failures = 0;
            this.lastEventId = event.id;
            yield event;
            if (event.event === "deleted") return;
          }
          reason = new Error("the server ended the stream");
        } catch (error) {
          if (this.stopped) return;
          if (error instanceof ArbiterError && !RETRIED.has(error.status)) throw error;
          reason = error;
        }
        const wait = this.backoff(failures++, reason);
        this.options.onReconnect?.(reason, wait);
        await this.sleep(wait);
      }
    } finally {
      this.stop();
    }
  }

  private async *connection(): AsyncGenerator<ServerSentEvent, void, undefined> {
    const headers: Record<string, string> = {
      accept: "text/event-stream",
      authorization: `Bearer ${this.options.token}`,
    };
    if (this.lastEventId !== "") headers["last-event-id"] = this.lastEventId;
    this.connections += 1;
    const response = await this.fetcher(this.url, { headers, signal: this.aborter.signal });
    if (!response.ok) throw await problemOf(response);
    if (response.body === null) throw new Error("the stream has no body");
    const parser = new EventParser(this.lastEventId, this.options.onComment);
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        for (const event of parser.push(value)) yield event;
        if (parser.retry !== null) this.delayMs = parser.retry;
      }
    } finally {
      // Closes the connection when the reading stops early (a `deleted` event, a break).
      reader.cancel().catch(() => {});
    }
  }

  private backoff(failures: number, reason: unknown): number {
    const asked = reason instanceof ArbiterError ? reason.retryAfter : null;
    if (asked !== null) return asked * 1000;
    const ceiling = this.options.maxDelayMs ?? 30_000;
    const delay = Math.min(ceiling, this.delayMs * 2 ** failures);
    return delay / 2 + (Math.random() * delay) / 2;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      this.aborter.signal.addEventListener("abort", done, { once: true });
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
    });
  }
}
