// Drives the module as Foundry would, against a live Arbiter (its URL: the first argument), with
// a GM's and a player's client in one world (test/foundry.mjs), and prints what it saw as JSON
// for tests/clients/test_foundry.py to check.

import { World } from "./foundry.mjs";

const base = process.argv[2];
const world = new World({ generation: Number(process.argv[3] ?? 12) });
const gmUser = world.user("gm1", "Gail", true);
const playerUser = world.user("player1", "Pat", false);
const gm = world.client(gmUser);
const player = world.client(playerUser);

// Every call the module makes, as the network saw it: the live-event streams opened.
const realFetch = globalThis.fetch;
const streams = [];
globalThis.fetch = (url, init = {}) => {
  const path = new URL(String(url)).pathname;
  if (path.endsWith("/events")) streams.push({ path, lastEventId: init.headers?.["last-event-id"] ?? null });
  return realFetch(url, init);
};

/** Foundry loading the module in `client`'s browser: the module's script, then init, ready. */
let loads = 0;
async function load(client) {
  client.hooks = new (client.hooks.constructor)();
  client.game = undefined; // a reload: a new page, the same localStorage
  world.activate(client);
  await import(`../scripts/arbiter.js?load=${++loads}`);
  Hooks.callAll("init");
  Hooks.callAll("ready");
  return game.modules.get("arbiter").api;
}

const cards = (after = 0) => world.messages.slice(after).filter((message) => message.flags?.arbiter?.event);
const dice = (content) => [...content.matchAll(/<span class="arbiter-die">(\d+)<\/span>/g)].map((match) => Number(match[1]));
const out = {};

// The GM's browser: the world's URL set, as in the module's settings.
let gmApi = await load(gm);
await game.settings.set("arbiter", "url", base);
const playerApi = await load(player);
world.activate(gm);
out.settings = Object.fromEntries([...world.registered].map(([id, options]) => [id, options.scope]));

// 1. A quick contest from the chat.
out.passesOther = Hooks.call("chatMessage", {}, "Hello, ogre.", {});
out.quickReturned = Hooks.call("chatMessage", {}, "/arbiter quick Lydia 14 vs Ogre 11", {});
await gmApi.settled();
const quick = world.messages.find((message) => message.flags?.arbiter?.event === "quick");
out.quick = {
  speaker: quick.speaker,
  content: quick.content,
  dice: dice(quick.content),
  result: quick.flags.arbiter.result,
};
const help = world.messages.length;
Hooks.call("chatMessage", {}, "/arbiter quick Lydia vs Ogre", {});
await gmApi.settled();
out.misuse = { warned: gm.notifications.at(-1), whisper: world.messages[help].whisper };

// Arbiter's refusal shown as the GM's error notification, its problem's detail in it.
Hooks.call("chatMessage", {}, "/arbiter quick Lydia 12 vs Lydia 11", {});
await gmApi.settled();
out.refused = gm.notifications.at(-1);
// A player may roll a quick contest, but neither start nor play a session.
world.activate(player);
const playerQuick = world.messages.length;
out.playerCommands = {
  start: Hooks.call("chatMessage", {}, "/arbiter arm-wrestle", {}),
  dialogs: world.dialogs.length,
  warned: player.notifications.at(-1),
  quick: Hooks.call("chatMessage", {}, "/arbiter quick Ann 12 vs Bob 10", {}),
};
await playerApi.settled();
out.playerCommands.quickCard = world.messages.slice(playerQuick).map((message) => message.flags?.arbiter?.result?.summary?.slice(0, 15));
world.activate(gm);

// The event-stream parser, on a stream cut at awkward places.
const { EventParser } = await import("../scripts/client.js");
const parser = new EventParser();
const chunks = ["id: 7\nevent: round\ndata: {\"a\"", ":1}\r", "\n\r\n: keep-alive\n", "data: Zo\u00eb\n", "\nretry: 250\nevent: ended\nid: 8\ndata\n\n"];
out.parsing = { perChunk: chunks.map((chunk) => parser.push(chunk)), retry: parser.retry, lastEventId: parser.lastEventId };

// 2. An arm wrestle from the selected tokens and the dialog.
gm.canvas.tokens.controlled = [
  { name: "Lydia", actor: { testUserPermission: (user, level) => user.id === "player1" && level === "OWNER" } },
  { name: "Ogre", actor: { testUserPermission: () => false } },
];
const started = world.messages.length;
Hooks.call("chatMessage", {}, "/arbiter arm-wrestle", {});
const dialog = await world.until("the dialog", () => world.dialogs.at(-1));
out.dialog = { title: dialog.data.title, shown: dialog.shown(), buttons: Object.keys(dialog.data.buttons) };
dialog.press("start", { target: "100", "a.strength_mod": "2", "a.con_score": "14", "a.con_mod": "2", "b.strength_mod": "4", "b.con_score": "16", "b.con_mod": "3" });
await gmApi.settled();
const opened = await world.message("the session card", (message) => message.flags?.arbiter?.event === "session", started);
const seatCard = world.messages.slice(started).find((message) => message.flags?.arbiter?.seat);
const sessionId = opened.flags.arbiter.id;
const held = game.settings.get("arbiter", "sessions")[sessionId];
out.started = {
  kind: opened.flags.arbiter.kind,
  version: opened.flags.arbiter.version,
  summary: opened.flags.arbiter.data.session.summary,
  config: opened.flags.arbiter.data.session.config,
  gmActions: gm.rendered.get(opened.id).actions(),
  seatWhisper: seatCard.whisper,
  seatSeenBy: world.clients.filter((client) => client.rendered.has(seatCard.id)).map((client) => client.user.id),
  playerSeats: Object.values(player.storage.get("arbiter.seats")).map((seat) => [seat.id === sessionId, seat.name, seat.kind, seat.token.length > 20]),
  gmSeats: gm.storage.get("arbiter.seats") ?? null,
  worldHoldsNoToken: !JSON.stringify([...world.world.values()]).includes(held.token),
};
// Following it again keeps the one stream.
await gmApi.follow(held.kind, sessionId, held.token, held.title);
out.streamsAfterSecondFollow = { open: gmApi.streams(), requests: streams.filter((s) => s.path.includes(sessionId)).length };

// 3. The GM plays a round that waits for the seats' dice; the player rolls their own.
gm.rendered.get(opened.id).click("play");
await gmApi.settled();
const pending = await world.message("the pending card", (message) => message.flags?.arbiter?.event === "pending", started);
out.pending = {
  version: pending.flags.arbiter.version,
  waitingFor: pending.flags.arbiter.data.pending.waiting_for,
  owes: pending.flags.arbiter.data.pending.owes,
  gmActions: gm.rendered.get(pending.id).actions(),
  playerActions: player.rendered.get(pending.id).actions(),
};
player.rendered.get(pending.id).click("roll-mine");
await playerApi.settled();
const diceIn = await world.message("Lydia's dice in", (message) => message.flags?.arbiter?.event === "dice-in", started);
out.diceIn = { name: diceIn.flags.arbiter.data.name, summary: diceIn.flags.arbiter.data.summary, playerNotified: player.notifications.at(-1) };
gm.rendered.get(pending.id).click("roll-rest");
await gmApi.settled();
const first = await world.message("round 1", (message) => message.flags?.arbiter?.event === "round", started);
out.round1 = {
  version: first.flags.arbiter.version,
  number: first.flags.arbiter.data.round.number,
  diceFrom: first.flags.arbiter.data.round.dice_from,
  rolls: first.flags.arbiter.data.round.rolls,
  cardDice: dice(first.content),
  summary: first.flags.arbiter.data.summary,
  content: first.content,
  gmActions: gm.rendered.get(first.id).actions(),
};

// 4. A reload of the GM's page: its stream ends; a round is played meanwhile (from the table
// page, say); the reloaded module resumes after the last event it posted.
const before = world.messages.length;
// The id of the last card posted is kept once the card is in the chat.
const kept = () => game.settings.get("arbiter", "sessions")[sessionId].lastEventId;
await world.until("round 1's id kept", () => kept() === String(out.round1.version) || null);
const lastSeen = kept();
gmApi.stop();
const played = await realFetch(`${base}/v1/arm-wrestles/${sessionId}/rounds`, {
  method: "POST",
  headers: { authorization: `Bearer ${held.token}`, "content-type": "application/json" },
  body: JSON.stringify({ rolls: { Lydia: { strength: 18 }, Ogre: { strength: 5 } } }),
});
out.playedWhileAway = { status: played.status };
gmApi = await load(gm);
const second = await world.message("round 2", (message) => message.flags?.arbiter?.event === "round", before);
out.resumed = {
  lastSeen,
  streams: streams.filter((s) => s.path.includes(sessionId)).map((s) => s.lastEventId),
  number: second.flags.arbiter.data.round.number,
  version: second.flags.arbiter.version,
  checks: second.flags.arbiter.data.round.checks,
};

// The player enters the die they rolled at the table.
const third = world.messages.length;
gm.rendered.get(second.id).click("play");
await gmApi.settled();
const pending3 = await world.message("round 3's pending card", (message) => message.flags?.arbiter?.event === "pending", third);
out.pending3 = { gmActions: gm.rendered.get(pending3.id).actions(), playerActions: player.rendered.get(pending3.id).actions() };
const dialogs = world.dialogs.length;
player.rendered.get(pending3.id).click("enter-dice");
const diceDialog = await world.until("the dice dialog", () => world.dialogs[dialogs]);
out.diceDialog = { title: diceDialog.data.title, shown: diceDialog.shown(), content: diceDialog.data.content };
diceDialog.press("send", { strength: "17" });
await playerApi.settled();
await world.message("Lydia's typed dice in", (message) => message.flags?.arbiter?.event === "dice-in", third);
gm.rendered.get(pending3.id).click("roll-rest");
await gmApi.settled();
const round3 = await world.message("round 3", (message) => message.flags?.arbiter?.event === "round", third);
out.round3 = {
  number: round3.flags.arbiter.data.round.number,
  diceFrom: round3.flags.arbiter.data.round.dice_from,
  lydia: round3.flags.arbiter.data.round.rolls.find((roll) => roll.who === "Lydia"),
  cardDice: dice(round3.content),
  supplied: round3.content.includes('<em class="arbiter-source">(supplied)</em>'),
};

// A reload between posting round 3's card and keeping its id: the stream replays that event,
// and the card already in the chat is not posted again.
await world.until("round 3's id kept", () => kept() === "8" || null);
gmApi.stop();
const rewound = structuredClone(gm.storage.get("arbiter.sessions"));
out.keptBeforeRewind = rewound[sessionId].lastEventId;
rewound[sessionId].lastEventId = "7";
gm.storage.set("arbiter.sessions", rewound);
gmApi = await load(gm);
await world.until("round 3's id kept again", () => kept() === "8" || null);
out.rewound = streams.filter((s) => s.path.includes(sessionId)).map((s) => s.lastEventId);

// 5. The session deleted: its card, and the stream and the GM's token let go.
const deleted = await realFetch(`${base}/v1/arm-wrestles/${sessionId}`, { method: "DELETE", headers: { authorization: `Bearer ${held.token}` } });
await world.message("the deleted card", (message) => message.flags?.arbiter?.event === "deleted", before);
await world.until("the session let go", () => !(sessionId in game.settings.get("arbiter", "sessions")) || null);
out.deleted = { status: deleted.status, open: gmApi.streams() };
// 6. A regular contest from the dialog alone (no token selected), played with /arbiter play.
gm.canvas.tokens.controlled = [];
const regularStart = world.messages.length;
Hooks.call("chatMessage", {}, "/arbiter regular", {});
const regularDialog = await world.until("the regular dialog", () => world.dialogs.find((one) => one.data.title === "Arbiter: Regular contest"));
out.regularDialog = regularDialog.shown();
regularDialog.press("start", { "a.name": "Ann", "a.skill": "12", "b.name": "Bob", "b.skill": "10", "b.seat": "player1" });
await gmApi.settled();
const regular = await world.message("the regular contest", (message) => message.flags?.arbiter?.event === "session", regularStart);
out.playCommand = Hooks.call("chatMessage", {}, "/arbiter play", {});
await gmApi.settled();
const regularPending = await world.message("its pending round", (message) => message.flags?.arbiter?.event === "pending", regularStart);
const regularId = regular.flags.arbiter.id;
const regularToken = game.settings.get("arbiter", "sessions")[regularId].token;
// Bob's player enters 6, 6, 6; the GM gives Ann's 1, 1, 2 from elsewhere (the table page, say).
const dialogsBefore = world.dialogs.length;
player.rendered.get(regularPending.id).click("enter-dice");
const bobDialog = await world.until("Bob's dice dialog", () => world.dialogs[dialogsBefore]);
out.bobDialog = { title: bobDialog.data.title, content: bobDialog.data.content };
bobDialog.press("send", { success: "6, 6, 6" });
await playerApi.settled();
await world.message("Bob's dice in", (message) => message.flags?.arbiter?.event === "dice-in", regularStart);
const annDice = await realFetch(`${base}/v1/regular-contests/${regularId}/rounds/pending/dice`, {
  method: "POST",
  headers: { authorization: `Bearer ${regularToken}`, "content-type": "application/json" },
  body: JSON.stringify({ rolls: { Ann: { success: [1, 1, 2] } } }),
});
const regularRound = await world.message("its round", (message) => message.flags?.arbiter?.event === "round", regularStart);
// A finished session is followed no more.
await world.until("the finished contest let go", () => !(regularId in game.settings.get("arbiter", "sessions")) || null);
out.regular = {
  kind: regular.flags.arbiter.kind,
  summary: regular.flags.arbiter.data.session.summary,
  waitingFor: regularPending.flags.arbiter.data.pending.waiting_for,
  owes: regularPending.flags.arbiter.data.pending.owes,
  annDice: annDice.status,
  rolls: regularRound.flags.arbiter.data.round.rolls.map((roll) => [roll.who, roll.purpose, roll.dice, roll.values, roll.source]),
  diceFrom: regularRound.flags.arbiter.data.round.dice_from,
  status: regularRound.flags.arbiter.data.session.status,
  winner: regularRound.flags.arbiter.data.round.winner,
  cardDice: dice(regularRound.content),
  buttons: gm.rendered.get(regularRound.id).actions(),
  open: gmApi.streams(),
  playerSeats: Object.values(player.storage.get("arbiter.seats")).map((seat) => seat.name).sort(),
};
// Followed again by hand, then let go by hand.
const followedAt = world.messages.length;
out.followCommand = Hooks.call("chatMessage", {}, `/arbiter follow regular-contests ${regularId} ${regularToken}`, {});
await gmApi.settled();
const refollowed = await world.message("the session card again", (message) => message.flags?.arbiter?.event === "session", followedAt);
out.refollowed = { version: refollowed.flags.arbiter.version, status: refollowed.flags.arbiter.data.session.status };
await world.until("the finished contest let go again", () => !(regularId in game.settings.get("arbiter", "sessions")) || null);
out.letGo = { open: gmApi.streams(), held: Object.keys(game.settings.get("arbiter", "sessions")) };
// A session made elsewhere, followed by command, then let go by command.
const made = await (await realFetch(`${base}/v1/arm-wrestles`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ a: { name: "Kit", strength_mod: 1, con_score: 12, con_mod: 1 }, b: { name: "Troll", strength_mod: 3, con_score: 15, con_mod: 2 } }),
})).json();
const madeAt = world.messages.length;
Hooks.call("chatMessage", {}, `/arbiter follow arm-wrestles ${made.id} ${made.tokens.gm}`, {});
await gmApi.settled();
const madeCard = await world.message("the made session's card", (message) => message.flags?.arbiter?.event === "session", madeAt);
out.followedMade = { summary: madeCard.flags.arbiter.data.session.summary, open: gmApi.streams().includes(made.id), actions: gm.rendered.get(madeCard.id).actions() };
gm.rendered.get(madeCard.id).click("play"); // no seats here: the server's dice
await gmApi.settled();
const madeRound = await world.message("the made session's round", (message) => message.flags?.arbiter?.event === "round", madeAt);
out.madeRound = { number: madeRound.flags.arbiter.data.round.number, diceFrom: madeRound.flags.arbiter.data.round.dice_from ?? null, sources: madeRound.flags.arbiter.data.round.rolls.map((roll) => roll.source) };
out.unfollowReturned = Hooks.call("chatMessage", {}, `/arbiter unfollow ${made.id}`, {});
await gmApi.settled();
out.unfollowed = { open: gmApi.streams(), held: Object.keys(game.settings.get("arbiter", "sessions")) };

out.sessionCards = cards(started)
  .filter((message) => message.flags.arbiter.id === sessionId)
  .map((message) => [message.flags.arbiter.version, message.flags.arbiter.event]);
// A session the GM's browser follows but that is gone: its stream's 404 shown, and let go.
const ghostAt = gm.notifications.length;
Hooks.call("chatMessage", {}, "/arbiter follow arm-wrestles 0123456789abcdef0123456789abcdef not-a-token", {});
await gmApi.settled();
await world.until("the ghost let go", () => (gm.notifications.length > ghostAt && Object.keys(game.settings.get("arbiter", "sessions")).length === 0) || null);
out.ghost = { notified: gm.notifications.slice(ghostAt), held: Object.keys(game.settings.get("arbiter", "sessions")), open: gmApi.streams() };

// Every error notification but the refusals asked for above.
out.errors = [...gm.notifications, ...player.notifications].filter((note) => note.level === "error" && note !== out.refused && !out.ghost.notified.includes(note));

process.stdout.write(JSON.stringify(out));
process.exit(0);
