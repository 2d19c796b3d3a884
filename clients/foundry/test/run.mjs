// Drives the module as Foundry would, against a live Arbiter (its URL: the first argument), with
// a GM's (in English) and a player's (in German) client in one world (test/foundry.mjs), and
// prints what it saw as JSON for tests/clients/test_foundry.py to check. The module is installed
// as Foundry installs it: from the manifest Arbiter serves, its `download` zip unpacked into a
// folder of its own, loaded from there.

import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { inflateRawSync } from "node:zlib";
import { World } from "./foundry.mjs";

const base = process.argv[2];
const generation = Number(process.argv[3] ?? 12);
const out = { generation };

/** A zip's files by name (its central directory read; stored or deflated entries). */
function unzip(zip) {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const files = new Map();
  for (let entry = 0; entry < count; entry++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const [nameLength, extra, comment] = [zip.readUInt16LE(at + 28), zip.readUInt16LE(at + 30), zip.readUInt16LE(at + 32)];
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString("utf8", at + 46, at + 46 + nameLength);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + size);
    files.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    at += 46 + nameLength + extra + comment;
  }
  return files;
}

// Foundry's *Install Module*: the manifest URL, then its download, unpacked as modules/arbiter.
const manifest = await (await fetch(`${base}/foundry/module.json`)).json();
const zipped = Buffer.from(await (await fetch(manifest.download)).arrayBuffer());
const data = mkdtempSync(join(tmpdir(), "arbiter-foundry-"));
const folder = join(data, "modules", manifest.id);
for (const [name, content] of unzip(zipped)) {
  mkdirSync(dirname(join(folder, name)), { recursive: true });
  writeFileSync(join(folder, name), content);
}
process.on("exit", () => rmSync(data, { recursive: true, force: true }));
out.installed = {
  manifest: manifest.manifest,
  download: manifest.download,
  files: readdirSync(folder, { recursive: true }).map(String).sort(),
  // What the installed module keeps of where it came from, for Foundry's update checks.
  kept: JSON.parse(readFileSync(join(folder, "module.json"), "utf8")).manifest,
};

const world = new World({ generation, module: folder, diceSoNice: generation >= 13 });
const gmUser = world.user("gm1", "Gail", true);
const playerUser = world.user("player1", "Pat", false);
const gm = world.client(gmUser, "en");
const player = world.client(playerUser, "de");

// Every call the module makes, as the network saw it: the live-event streams opened, and the
// language each call asked Arbiter to answer in, by the token it carried.
const realFetch = globalThis.fetch;
const streams = [];
const calls = [];
globalThis.fetch = (url, init = {}) => {
  const path = new URL(String(url)).pathname;
  if (path.endsWith("/events")) streams.push({ path, lastEventId: init.headers?.["last-event-id"] ?? null });
  calls.push({ path, token: init.headers?.authorization?.slice("Bearer ".length) ?? null, language: init.headers?.["accept-language"] ?? null });
  return realFetch(url, init);
};

/** Foundry loading the module in `client`'s browser: the module's script, then init, ready. */
let loads = 0;
async function load(client) {
  client.hooks = new (client.hooks.constructor)();
  client.game = undefined; // a reload: a new page, the same localStorage
  world.activate(client);
  await import(`${pathToFileURL(join(folder, "scripts", "arbiter.js")).href}?load=${++loads}`);
  Hooks.callAll("init");
  Hooks.callAll("ready");
  return game.modules.get("arbiter").api;
}

const event = (name, kind) => (message) => message.flags?.arbiter?.event === name && message.flags.arbiter.kind === kind;
const cards = (after = 0) => world.messages.slice(after).filter((message) => message.flags?.arbiter?.event);
const dice = (content) => [...content.matchAll(/<span class="arbiter-die">(\d+)<\/span>/g)].map((match) => Number(match[1]));
/** What Dice So Nice showed of the card `message`: the call made just before it was posted. */
const shownFor = (message) => {
  const index = world.messages.indexOf(message);
  const call = world.shown.find((one) => one.messages === index);
  return call ? { values: call.values, faces: call.faces, synchronize: call.synchronize, by: call.by } : null;
};

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
  shown: shownFor(quick),
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
const { EventParser } = await import(pathToFileURL(join(folder, "scripts", "client.js")).href);
const parser = new EventParser();
const chunks = ["id: 7\nevent: round\ndata: {\"a\"", ":1}\r", "\n\r\n: keep-alive\n", "data: Zo\u00eb\n", "\nretry: 250\nevent: ended\nid: 8\ndata\n\n"];
out.parsing = { perChunk: chunks.map((chunk) => parser.push(chunk)), retry: parser.retry, lastEventId: parser.lastEventId };

// What Roll my dice rolls of what a seat owes, per kind.
const { owedRolls } = await import(pathToFileURL(join(folder, "scripts", "kinds.js")).href);
const owed = (purpose, certain, most) => ({ purpose, certain, most, when: certain ? null : "if needed" });
out.owedRolls = {
  armWrestle: owedRolls("arm-wrestles", [owed("constitution", 1, 1), owed("strength", 0, 1), owed("damage", 0, 1)]),
  notationDamage: owedRolls("arm-wrestles", [owed("damage", 0, null)]),
  regular: owedRolls("regular-contests", [owed("success", 3, 3)]),
  hide: owedRolls("chases", [owed("hide", 1, 4), owed("obstacle", 0, null)]),
};

// 2. An arm wrestle from the selected tokens and the dialog.
gm.canvas.tokens.controlled = [
  { name: "Lydia", actor: { testUserPermission: (user, level) => user.id === "player1" && level === "OWNER" } },
  { name: "Ogre", actor: { testUserPermission: () => false } },
];
const started = world.messages.length;
Hooks.call("chatMessage", {}, "/arbiter arm-wrestle", {});
const dialog = await world.until("the dialog", () => world.dialogs.at(-1));
out.dialog = { title: dialog.title, shown: dialog.shown(), buttons: dialog.actions, api: dialog.api };
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
  gmLabels: gm.rendered.get(pending.id).labels(),
  playerLabels: player.rendered.get(pending.id).labels(),
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
  shown: shownFor(first),
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
out.diceDialog = { title: diceDialog.title, shown: diceDialog.shown(), content: diceDialog.content, api: diceDialog.api };
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
const regularDialog = await world.until("the regular dialog", () => world.dialogs.find((one) => one.title === "Arbiter: Regular contest"));
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
out.bobDialog = { title: bobDialog.title, content: bobDialog.content };
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
// Bob's player rolls his seat's 3d6 with Foundry's own dice (Dice So Nice shows them where the
// world has it, else the chat's dice sound plays); the GM has Arbiter roll Ann's.
const foundryAt = world.messages.length;
const rolledBefore = world.rolled.length;
const soundsBefore = world.sounds.length;
Hooks.call("chatMessage", {}, "/arbiter regular", {});
const foundryDialog = await world.until("the second regular dialog", () => world.dialogs.slice(dialogsBefore + 1).find((one) => one.title === "Arbiter: Regular contest"));
foundryDialog.press("start", { "a.name": "Cy", "a.skill": "11", "b.name": "Dee", "b.skill": "13", "b.seat": "player1" });
await gmApi.settled();
const foundryContest = await world.message("the second regular contest", event("session", "regular-contests"), foundryAt);
const foundryId = foundryContest.flags.arbiter.id;
await world.until("Dee's seat kept", () => player.storage.get("arbiter.seats")?.[foundryId] || null);
gm.rendered.get(foundryContest.id).click("play");
await gmApi.settled();
const foundryPending = await world.message("its waiting round", event("pending", "regular-contests"), foundryAt);
const shownBefore = world.shown.length;
player.rendered.get(foundryPending.id).click("roll-dice");
await playerApi.settled();
const foundryIn = await world.message("Dee's Foundry dice in", event("dice-in", "regular-contests"), foundryAt);
gm.rendered.get(foundryPending.id).click("roll-rest");
await gmApi.settled();
const foundryRound = await world.message("its round", event("round", "regular-contests"), foundryAt);
out.foundryDice = {
  gmActions: gm.rendered.get(foundryPending.id).actions(),
  playerActions: player.rendered.get(foundryPending.id).actions(),
  playerLabels: player.rendered.get(foundryPending.id).labels(),
  gmLabels: gm.rendered.get(foundryPending.id).labels(),
  owes: foundryPending.flags.arbiter.data.pending.owes,
  rolled: world.rolled.slice(rolledBefore),
  shown: world.shown.slice(shownBefore).map((call) => ({ by: call.by, values: call.values, faces: call.faces, synchronize: call.synchronize })),
  sounds: world.sounds.slice(soundsBefore),
  diceIn: foundryIn.flags.arbiter.data.name,
  notified: player.notifications.at(-1),
  rolls: foundryRound.flags.arbiter.data.round.rolls.map((roll) => [roll.who, roll.purpose, roll.dice, roll.values, roll.source]),
  diceFrom: foundryRound.flags.arbiter.data.round.dice_from,
  dee: foundryRound.flags.arbiter.data.round.b ?? foundryRound.flags.arbiter.data.round.a,
  supplied: foundryRound.content.includes('<em class="arbiter-source">(supplied)</em>'),
};
// Let go, decided or not: the sessions below start from none followed.
await gmApi.unfollow(foundryId);
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

// 7. A race from the selected tokens: the dialog, an increment waiting for the seats' dice.
const tokens = () => [
  { name: "Lydia", actor: { testUserPermission: (user, level) => user.id === "player1" && level === "OWNER" } },
  { name: "Ogre", actor: { testUserPermission: () => false } },
];
gm.canvas.tokens.controlled = tokens();
const raceAt = world.messages.length;
Hooks.call("chatMessage", {}, "/arbiter race", {});
const raceDialog = await world.until("the race dialog", () => world.dialogs.find((one) => one.title === "Arbiter: Race"));
out.raceDialog = { shown: raceDialog.shown(), buttons: raceDialog.actions, api: raceDialog.api };
raceDialog.press("start", { course: "dash", "r0.speed": "40", "r1.con_score": "14" });
await gmApi.settled();
const race = await world.message("the race", event("session", "races"), raceAt);
const raceId = race.flags.arbiter.id;
const raceSeat = world.messages.slice(raceAt).find((message) => message.flags?.arbiter?.seat);
// Before the first increment, Lydia's player sets her pacing for the race.
out.raceCardActions = { gm: gm.rendered.get(race.id).actions(), player: player.rendered.get(race.id).actions() };
await world.until("Lydia's race seat kept", () => player.storage.get("arbiter.seats")?.[raceId] || null);
const beforePacing = world.dialogs.length;
player.rendered.get(race.id).click("pacing");
await playerApi.settled();
const pacingDialog = await world.until("Lydia's pacing dialog", () => world.dialogs[beforePacing]);
out.pacingDialog = { title: pacingDialog.title, shown: pacingDialog.shown() };
pacingDialog.press("send", { pacing: "sprint" });
await playerApi.settled();
const paced = await world.message("Lydia's pacing", event("pacing", "races"), raceAt);
out.paced = { pacing: paced.flags.arbiter.data.session.state.pacing, actions: gm.rendered.get(paced.id).actions(), notified: player.notifications.at(-1) };
gm.rendered.get(race.id).click("play");
await gmApi.settled();
const racePending = await world.message("the race's waiting increment", event("pending", "races"), raceAt);
player.rendered.get(racePending.id).click("roll-mine");
await playerApi.settled();
await world.message("Lydia's race dice in", event("dice-in", "races"), raceAt);
gm.rendered.get(racePending.id).click("roll-rest");
await gmApi.settled();
const raceRound = await world.message("the race's increment", event("round", "races"), raceAt);
out.race = {
  title: race.content.match(/<header class="arbiter-title">([^<]*)</)[1],
  config: race.flags.arbiter.data.session.config,
  seat: [raceSeat.whisper, raceSeat.flags.arbiter.seat.name, raceSeat.flags.arbiter.seat.id === raceId],
  gmActions: gm.rendered.get(race.id).actions(),
  waitingFor: racePending.flags.arbiter.data.pending.waiting_for,
  increment: raceRound.flags.arbiter.data.round.increment,
  diceFrom: raceRound.flags.arbiter.data.round.dice_from,
  rolls: raceRound.flags.arbiter.data.round.rolls,
  cardDice: dice(raceRound.content),
  shown: shownFor(raceRound),
  roundActions: gm.rendered.get(raceRound.id).actions(),
};

// 8. A chase: the GM names each increment's terrain and tactic in a dialog; the escapee's
// player types her dice; the chaser gives up.
gm.canvas.tokens.controlled = tokens();
const chaseAt = world.messages.length;
Hooks.call("chatMessage", {}, "/arbiter chase", {});
const chaseDialog = await world.until("the chase dialog", () => world.dialogs.find((one) => one.title === "Arbiter: Chase"));
out.chaseDialog = chaseDialog.shown();
chaseDialog.press("start", { "e.speed": "30", "c.speed": "30", lead: "10" });
await gmApi.settled();
const chase = await world.message("the chase", event("session", "chases"), chaseAt);
const chaseId = chase.flags.arbiter.id;
out.chaseActions = { gm: gm.rendered.get(chase.id).actions(), player: player.rendered.get(chase.id).actions() };
const beforeIncrement = world.dialogs.length;
gm.rendered.get(chase.id).click("play");
await gmApi.settled();
const increment = await world.until("the increment's dialog", () => world.dialogs[beforeIncrement]);
out.incrementDialog = { title: increment.title, shown: increment.shown(), api: increment.api, client: increment.client.user.id };
increment.press("play", { terrain: "strength", dc: "12", obstacle: "hazard", obstacle_check: "jump", obstacle_dc: "8", tactic: "hazard", penalty: "2" });
await gmApi.settled();
const chasePending = await world.message("the chase's waiting increment", event("pending", "chases"), chaseAt);
const beforeTyped = world.dialogs.length;
player.rendered.get(chasePending.id).click("enter-dice");
const typed = await world.until("Lydia's chase dice dialog", () => world.dialogs[beforeTyped]);
out.chaseOwes = chasePending.flags.arbiter.data.pending.owes;
// Her Dexterity 1 fails to create the hazard; her 20s clear the jump before the check and the check's DC.
typed.press("send", Object.fromEntries(Object.keys(typed.shown()).map((purpose) => [purpose, purpose === "dexterity" ? "1" : "20"])));
await playerApi.settled();
await world.message("Lydia's chase dice in", event("dice-in", "chases"), chaseAt);
gm.rendered.get(chasePending.id).click("roll-rest");
await gmApi.settled();
const chaseRound = await world.message("the chase's increment", event("round", "chases"), chaseAt);
const chaseRecord = chaseRound.flags.arbiter.data.round;
out.chase = {
  terrain: chaseRecord.terrain,
  tactic: chaseRecord.tactic,
  lead: [chaseRecord.lead_before, chaseRecord.lead, chaseRecord.gains],
  status: chaseRound.flags.arbiter.data.session.status,
  escapeeDice: chaseRecord.rolls.filter((roll) => roll.who === "Lydia").map((roll) => [roll.purpose, roll.values, roll.source]),
  cardDice: dice(chaseRound.content),
  rolls: chaseRecord.rolls.flatMap((roll) => roll.values),
  actions: gm.rendered.get(chaseRound.id).actions(),
};
if (out.chase.status === "active") {
  gm.rendered.get(chaseRound.id).click("give-up");
  await gmApi.settled();
  const ended = await world.message("the chase's end", event("ended", "chases"), chaseAt);
  out.chaseEnded = { status: ended.flags.arbiter.data.session.status, detail: ended.flags.arbiter.data.session.state.status_detail, actions: gm.rendered.get(ended.id).actions() };
}
// A chase made elsewhere whose sides both ride: its increment may be mounted.
const riders = await (await realFetch(`${base}/v1/chases`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    escapee: { name: "Kit", speed: 30, con_score: 12, mount: { strength_mod: 3, speed: 60, con_score: 14 } },
    chaser: { name: "Troll", speed: 30, con_score: 15, mount: { strength_mod: 2, speed: 50, con_score: 13 } },
    start: { mode: "lead", lead: 20 },
  }),
})).json();
const ridersAt = world.messages.length;
Hooks.call("chatMessage", {}, `/arbiter follow chases ${riders.id} ${riders.tokens.gm}`, {});
await gmApi.settled();
const ridersCard = await world.message("the riders' chase", event("session", "chases"), ridersAt);
const beforeMounted = world.dialogs.length;
gm.rendered.get(ridersCard.id).click("play");
await gmApi.settled();
const mountedDialog = await world.until("the mounted increment's dialog", () => world.dialogs[beforeMounted]);
out.mountedDialog = mountedDialog.shown();
mountedDialog.press("play", { terrain: "strength", mounted: "yes" });
await gmApi.settled();
const ridersRound = await world.message("the riders' increment", event("round", "chases"), ridersAt);
out.mountedRound = { terrain: ridersRound.flags.arbiter.data.round.terrain, purposes: ridersRound.flags.arbiter.data.round.rolls.map((roll) => [roll.who, roll.purpose]) };
await gmApi.unfollow(riders.id);

// 9. A skill game: the selected tokens its members; the player plays Heroes with the party's
// token, the GM the Villains; a losing bid's action stays sealed in the chat.
gm.canvas.tokens.controlled = tokens();
const skillAt = world.messages.length;
Hooks.call("chatMessage", {}, "/arbiter skill-game", {});
const skillDialog = await world.until("the skill game's dialog", () => world.dialogs.find((one) => one.title === "Arbiter: Skill game"));
out.skillDialog = skillDialog.shown();
skillDialog.press("start", { skill_list: "Persuade, Insight", "m0.skills": "Persuade +3, Insight +1", "m1.skills": "Persuade +1", goal: "3", max_rounds: "4" });
await gmApi.settled();
const skillGame = await world.message("the skill game", event("session", "skill-games"), skillAt);
const skillId = skillGame.flags.arbiter.id;
const partyCard = world.messages.slice(skillAt).find((message) => message.flags?.arbiter?.party);
await world.until("Heroes' token kept", () => player.storage.get("arbiter.parties")?.[`${skillId}/Heroes`] || null);
const heroesToken = player.storage.get("arbiter.parties")[`${skillId}/Heroes`].token;
out.skillStart = {
  config: skillGame.flags.arbiter.data.session.config,
  party: [partyCard.whisper, partyCard.flags.arbiter.party.name],
  playerParties: Object.keys(player.storage.get("arbiter.parties")).map((key) => key.split("/")[1]),
  gmActions: gm.rendered.get(skillGame.id).actions(),
  playerActions: player.rendered.get(skillGame.id).actions(),
  playerLabels: player.rendered.get(skillGame.id).labels(),
};
let shownDialogs = world.dialogs.length;
player.rendered.get(skillGame.id).click("choose-skills");
const heroesSkills = await world.until("Heroes' skills dialog", () => world.dialogs[shownDialogs]);
out.heroesSkillsDialog = { title: heroesSkills.title, shown: heroesSkills.shown() };
// Lydia rolled her Persuade d20 at the table: 17; her Insight is left to Arbiter.
heroesSkills.press("send", { skill1: "Persuade", skill2: "Insight", "die.0.0.1": "17" });
await playerApi.settled();
const heroesRolled = await world.message("Heroes' checks", (message) => event("skills", "skill-games")(message) && message.flags.arbiter.data.party === "Heroes", skillAt);
shownDialogs = world.dialogs.length;
gm.rendered.get(heroesRolled.id).click("choose-skills");
const villainsSkills = await world.until("the Villains' skills dialog", () => world.dialogs[shownDialogs]);
out.villainsSkillsDialog = villainsSkills.shown();
villainsSkills.press("send", { skill1: "Persuade", skill2: "Insight" });
await gmApi.settled();
const villainsRolled = await world.message("the Villains' checks", (message) => event("skills", "skill-games")(message) && message.flags.arbiter.data.party === "Villains", skillAt);
out.skillChecks = {
  heroes: heroesRolled.flags.arbiter.data.checks,
  rolls: heroesRolled.flags.arbiter.data.rolls.map((roll) => [roll.who, roll.purpose, roll.values.length]),
  cardDice: dice(heroesRolled.content),
  diceOf: heroesRolled.flags.arbiter.data.rolls.flatMap((roll) => roll.values),
  sources: heroesRolled.flags.arbiter.data.rolls.map((roll) => [roll.who, roll.purpose, roll.values, roll.source]),
  shown: shownFor(heroesRolled),
  next: gm.rendered.get(villainsRolled.id).actions(),
};
// The GM grants Heroes a token from the card's button, so that Heroes may bid it.
out.skillCardActions = { gm: gm.rendered.get(villainsRolled.id).actions(), player: player.rendered.get(villainsRolled.id).actions(), gmLabels: gm.rendered.get(villainsRolled.id).labels() };
shownDialogs = world.dialogs.length;
gm.rendered.get(villainsRolled.id).click("grant");
await gmApi.settled();
const grantDialog = await world.until("the grant dialog", () => world.dialogs[shownDialogs]);
out.grantDialog = { title: grantDialog.title, shown: grantDialog.shown(), content: grantDialog.content };
grantDialog.press("send", { party: "Heroes", tokens: "1", reason: "a rousing speech" });
await gmApi.settled();
const grantCard = await world.message("the grant", event("granted", "skill-games"), skillAt);
out.granted = { tokens: grantCard.flags.arbiter.data.session.state.tokens, grant: grantCard.flags.arbiter.data.grant, summary: grantCard.flags.arbiter.data.summary };
shownDialogs = world.dialogs.length;
player.rendered.get(villainsRolled.id).click("choose");
const heroesChoice = await world.until("Heroes' choice dialog", () => world.dialogs[shownDialogs]);
out.heroesChoiceDialog = heroesChoice.shown();
heroesChoice.press("send", { action: "Press", bid: "1" });
await playerApi.settled();
const sealed = await world.message("Heroes' sealed choice", event("submitted", "skill-games"), skillAt);
shownDialogs = world.dialogs.length;
gm.rendered.get(sealed.id).click("choose");
const villainsChoice = await world.until("the Villains' choice dialog", () => world.dialogs[shownDialogs]);
villainsChoice.press("send", { party: "Villains", action: "Rally", bid: "0" });
await gmApi.settled();
const revealed = await world.message("the revealed round", event("revealed", "skill-games"), skillAt);
const heroesRead = await (await realFetch(`${base}/v1/skill-games/${skillId}/rounds`, { headers: { authorization: `Bearer ${heroesToken}` } })).json();
const gmRead = await (await realFetch(`${base}/v1/skill-games/${skillId}/rounds`, { headers: { authorization: `Bearer ${game.settings.get("arbiter", "sessions")[skillId].token}` } })).json();
out.revealed = {
  choices: revealed.flags.arbiter.data.round.choices,
  heroesRead: heroesRead.rounds.map((round) => round.choices),
  gmRead: gmRead.rounds.map((round) => round.choices),
  sealedSummary: sealed.flags.arbiter.data.summary,
  rallyInChat: world.messages.slice(skillAt).filter((message) => message.content.includes("Rally") || JSON.stringify(message.flags?.arbiter?.data?.round ?? {}).includes("Rally")).length,
  effects: revealed.flags.arbiter.data.round.effects,
  content: revealed.content,
  actions: gm.rendered.get(revealed.id).actions(),
  playerNotified: player.notifications.at(-1),
  shown: shownFor(revealed),
  grantTitle: world.messages.slice(skillAt).find(event("granted", "skill-games")).content.match(/<header class="arbiter-title">([^<]*)</)[1],
};
// An option game: each party's actions, which every reader sees once revealed.
gm.canvas.tokens.controlled = tokens();
const optionAt = world.messages.length;
Hooks.call("chatMessage", {}, "/arbiter skill-game", {});
const optionDialog = await world.until("the option game's dialog", () => world.dialogs.slice(shownDialogs + 1).find((one) => one.title === "Arbiter: Skill game"));
optionDialog.press("start", { kind: "option", skill_list: "Persuade, Insight", "m0.skills": "Persuade +3", "m1.skills": "Insight +1", goal: "3", max_rounds: "4" });
await gmApi.settled();
const optionGame = await world.message("the option game", event("session", "skill-games"), optionAt);
const optionId = optionGame.flags.arbiter.id;
await world.until("the option game's party kept", () => player.storage.get("arbiter.parties")?.[`${optionId}/Heroes`] || null);
const pick = async (client, api, card, action, values) => {
  const before = world.dialogs.length;
  client.rendered.get(card.id).click(action);
  const dialog = await world.until(`${client.user.id}'s ${action} dialog`, () => world.dialogs[before]);
  const shown = dialog.shown();
  dialog.press("send", values);
  await api.settled();
  return shown;
};
await pick(player, playerApi, optionGame, "choose-skills", { skill1: "Persuade", skill2: "Insight" });
await pick(gm, gmApi, optionGame, "choose-skills", { skill1: "Persuade", skill2: "Insight" });
const optionChoices = await world.message("the option game's choices due", (message) => event("skills", "skill-games")(message) && message.flags.arbiter.id === optionId && message.flags.arbiter.data.session.state.phase === "choices", optionAt);
const optionForm = await pick(player, playerApi, optionChoices, "choose", { action1: "Rally" });
await pick(gm, gmApi, optionChoices, "choose", { action1: "Rally" });
const optionRound = await world.message("the option round", (message) => event("revealed", "skill-games")(message) && message.flags.arbiter.id === optionId, optionAt);
out.option = {
  config: [optionGame.flags.arbiter.data.session.config.kind, optionGame.flags.arbiter.data.session.config.actions.map((action) => [action.name, action.cost])],
  form: optionForm,
  choices: optionRound.flags.arbiter.data.round.choices,
  effects: optionRound.flags.arbiter.data.round.effects.map((effect) => [effect.party, effect.action]),
};
// The GM ends the option game from its card, with a reason.
const beforeEnd = world.dialogs.length;
out.optionRoundActions = { gm: gm.rendered.get(optionRound.id).actions(), player: player.rendered.get(optionRound.id).actions() };
gm.rendered.get(optionRound.id).click("end-game");
await gmApi.settled();
const endDialog = await world.until("the end dialog", () => world.dialogs[beforeEnd]);
out.endDialog = { title: endDialog.title, shown: endDialog.shown(), actions: endDialog.actions };
endDialog.press("end", { reason: "the council adjourns" });
await gmApi.settled();
const optionEnded = await world.message("the option game's end", (message) => event("ended", "skill-games")(message) && message.flags.arbiter.id === optionId, optionAt);
out.optionEnded = {
  status: optionEnded.flags.arbiter.data.session.status,
  result: optionEnded.flags.arbiter.data.session.result,
  summary: optionEnded.flags.arbiter.data.summary,
  actions: gm.rendered.get(optionEnded.id).actions(),
};
out.dialogApis = [...new Set(world.dialogs.map((one) => one.api))];
out.deprecatedDialogReads = world.deprecatedReads;
// The language of each call: the GM's in English, the player's (a seat's or a party's token) in German.
const playerTokens = new Set([...Object.values(player.storage.get("arbiter.seats") ?? {}), ...Object.values(player.storage.get("arbiter.parties") ?? {})].map((held) => held.token));
const gmTokens = new Set(Object.values(gm.storage.get("arbiter.sessions") ?? {}).map((held) => held.token));
out.languages = {
  player: [...new Set(calls.filter((one) => playerTokens.has(one.token)).map((one) => one.language))],
  gm: [...new Set(calls.filter((one) => gmTokens.has(one.token)).map((one) => one.language))],
  any: [...new Set(calls.filter((one) => !one.path.startsWith("/foundry/")).map((one) => one.language))].sort(),
};

// Every error notification but the refusals asked for above.
out.errors = [...gm.notifications, ...player.notifications].filter((note) => note.level === "error" && note !== out.refused && !out.ghost.notified.includes(note));

process.stdout.write(JSON.stringify(out));
process.exit(0);
