// The TypeScript client (clients/typescript/client.ts) against a live server, run by
// tests/clients/test_typescript_client.py once compiled by tsc: `node live_events.js <base URL>`.
// It prints one JSON object of what it saw; the test checks its values.
//
// Live: an arm wrestle is created and a round played with typed calls; its events are read
// through a fetch that drops the first connection after the round's event and holds the
// reconnection until two more rounds are played, so the reader must resume with Last-Event-ID
// and the server replay what it missed.
import { Arbiter, ArbiterError, EventParser, LiveEvents, ServerSentEvent, ifMatch } from "./client";

declare const process: { argv: string[]; exitCode?: number };

const ARM_WRESTLE = {
  a: { name: "Lydia", strength_mod: 2, con_score: 200, con_mod: 1 },
  b: { name: "Ogre", strength_mod: 6, con_score: 200, con_mod: 2 },
};
const WAIT_MS = 15_000;

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The parser on a stream cut at awkward places: CRLF and CR line ends split between chunks,
 * data on two lines, a comment, an event without id or name, `retry:`, an event with no data. */
function parsing(): unknown {
  const comments: string[] = [];
  const parser = new EventParser("", (comment) => comments.push(comment));
  const chunks: (string | Uint8Array)[] = [
    '\uFEFFid: 7\r\nevent: round\r\ndata: {"a":',
    "1}\r\ndata: second line\r",
    "\n\r",
    "\n: keep-alive\n\n",
    "data: no id or name\n\n",
    "retry: 250\nid: 8\nevent: ended\ndata\n\n",
    "event: no data\n\n",
  ];
  // "Zoë" split inside the ë's two bytes.
  const bytes = new TextEncoder().encode("data:Zo\u00eb\n\n");
  chunks.push(bytes.slice(0, 8), bytes.slice(8));
  const events: ServerSentEvent[] = [];
  const perChunk: number[] = [];
  for (const chunk of chunks) {
    const found = parser.push(chunk);
    perChunk.push(found.length);
    events.push(...found);
  }
  return { events, perChunk, comments, retry: parser.retry, lastEventId: parser.lastEventId };
}

async function live(base: string): Promise<unknown> {
  const arbiter = new Arbiter(base);
  const created = await arbiter.call("post", "/v1/arm-wrestles", { body: ARM_WRESTLE });
  const id = created.body.id;
  const gm = created.body.tokens?.gm;
  if (gm === undefined) throw new Error("no GM token");
  let version = created.version ?? 0;
  const rounds: unknown[] = [];
  async function play(lydia: number, ogre: number, key: string): Promise<void> {
    const played = await arbiter.call("post", "/v1/arm-wrestles/{session_id}/rounds", {
      path: { session_id: id },
      token: gm,
      headers: { "If-Match": ifMatch(version), "Idempotency-Key": key },
      body: { rolls: { Lydia: { strength: lydia }, Ogre: { strength: ogre } } },
    });
    version = played.version ?? -1;
    // 200 is the round played; 202 a round waiting for seats' dice, which this one never is.
    if (!("round" in played.body)) throw new Error(`round ${key} waits for dice`);
    rounds.push({ number: played.body.round.number, version, replayed: played.replayed });
  }

  // The events' fetch: the first connection can be dropped; the second waits for `reopen`.
  const asked: (string | null)[] = [];
  let drop: (() => void) | null = null;
  let reopen: () => void = () => {};
  const reopened = new Promise<void>((resolve) => (reopen = resolve));
  const dropping: typeof fetch = async (input, init) => {
    asked.push(new Headers(init?.headers).get("last-event-id"));
    if (asked.length === 2) await reopened;
    const response = await fetch(input, init);
    if (asked.length !== 1 || response.body === null) return response;
    const source = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        drop = () => {
          controller.error(new TypeError("connection dropped"));
          source.cancel().catch(() => {});
        };
      },
      async pull(controller) {
        const { done, value } = await source.read();
        try {
          if (done) controller.close();
          else controller.enqueue(value);
        } catch {
          // dropped meanwhile
        }
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const reconnections: string[] = [];
  const events = new LiveEvents(`${base}/v1/arm-wrestles/${id}/events`, {
    token: gm,
    fetch: dropping,
    firstDelayMs: 50,
    onReconnect: (reason) => reconnections.push(String(reason)),
  });
  const seen: ServerSentEvent[] = [];
  const reading = (async () => {
    for await (const event of events) seen.push(event);
  })();

  await until("the opening event", () => seen.length === 1);
  await play(17, 8, "round-1");
  await until("round 1's event", () => seen.length === 2);
  if (drop === null) throw new Error("the first connection cannot be dropped");
  (drop as () => void)();
  await until("the reconnection", () => asked.length === 2);
  await play(16, 9, "round-2");
  await play(15, 10, "round-3");
  await play(15, 10, "round-3"); // a retry: replayed, no change and no event
  reopen();
  await until("the missed rounds' events", () => seen.length === 4);

  // A second reader, stopped: its iteration ends.
  const watcher = arbiter.events("arm-wrestles", id, { token: gm });
  const watched: string[] = [];
  for await (const event of watcher) {
    watched.push(`${event.id} ${event.event}`);
    watcher.stop();
  }

  // Errors carry their problem+json: a stale If-Match, and a stream of no session.
  let stale: unknown = null;
  try {
    await arbiter.call("post", "/v1/arm-wrestles/{session_id}/rounds", {
      path: { session_id: id },
      token: gm,
      headers: { "If-Match": ifMatch(1) },
      body: {},
    });
  } catch (error) {
    if (!(error instanceof ArbiterError)) throw error;
    stale = { status: error.status, title: error.problem.title, detail: error.problem.detail };
  }
  let missing: unknown = null;
  try {
    for await (const _ of arbiter.events("arm-wrestles", "0".repeat(32), { token: gm })) break;
  } catch (error) {
    if (!(error instanceof ArbiterError)) throw error;
    missing = { status: error.status, title: error.problem.title };
  }

  const deleted = await arbiter.call("delete", "/v1/arm-wrestles/{session_id}", {
    path: { session_id: id },
    token: gm,
  });
  await reading; // a `deleted` event ends the iteration
  return {
    id,
    created: { status: created.status, version: created.version },
    rounds,
    events: seen.map((event) => ({ id: event.id, event: event.event, data: JSON.parse(event.data) })),
    asked,
    reconnections,
    connections: events.connections,
    lastEventId: events.lastEventId,
    watched,
    stale,
    missing,
    deleted: { status: deleted.status, body: deleted.body ?? null },
  };
}

async function main(): Promise<void> {
  const base = process.argv[2];
  if (base === undefined) throw new Error("usage: node live_events.js <base URL>");
  console.log(JSON.stringify({ parsing: parsing(), live: await live(base) }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
