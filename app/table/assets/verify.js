// Verifiable dice, checked in the browser (or in Node 20): the scheme of
// docs/verifiable-dice.md (`arbiter-verifiable-dice-v1`) with WebCrypto alone. No DOM code
// here, so that it runs and is tested on its own (tests/clients/test_table_verify.py).
//
// `verifyProof(proof, {expected, served})` takes a proof (revealed: with every round, oldest
// first), what the page was shown before (`remember`) and the rounds it was served, makes the
// checks of docs/verifiable-dice.md in order and answers `{ok, session, diceChecked,
// roundsChecked, problems, left, rounds}`; each problem names its place in the words of the
// Python client's verifier (arbiter_client.verify), so both say the same. A malformed proof is
// reported, never thrown.

export const SCHEME = "arbiter-verifiable-dice-v1";

const SPAN = 1n << 256n;
const PLAIN = /^([0-9]+)d([0-9]+)$/;
const encoder = new TextEncoder();

/** A text the page shows, in English with its `{placeholders}` filled from `values`. The page
 * passes its own `t` (i18n.js: its language's catalog, which holds these texts) to the
 * functions that make its lines; this module imports nothing, so that Node.js runs it as
 * it is. */
function english(text, values = {}) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}
const t = english;

function subtle() {
  const found = globalThis.crypto && globalThis.crypto.subtle;
  if (!found) throw new Error(t("This page cannot check dice here: the browser's WebCrypto (crypto.subtle) needs a secure page (https, or http on this computer)."));
  return found;
}

/** Compare two strings by Unicode code point (not by UTF-16 unit, as `<` does). */
function byCodePoint(a, b) {
  const left = [...a];
  const right = [...b];
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    const difference = left[index].codePointAt(0) - right[index].codePointAt(0);
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

/** The canonical JSON text of `value` (docs/verifiable-dice.md#canonical-json). */
export function canonicalText(value) {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error(`not in a canonical record: ${value}`);
    return String(value);
  }
  // JSON.stringify writes a string as the page says: only `"`, `\` and U+0000..U+001F escaped.
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalText).join(",")}]`;
  if (typeof value === "object") {
    const keys = Object.keys(value).filter((key) => value[key] !== undefined).sort(byCodePoint);
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalText(value[key])}`).join(",")}}`;
  }
  throw new Error(`not in a canonical record: ${String(value)}`);
}

/** The canonical JSON of `value` as UTF-8 bytes. */
export function canonical(value) {
  return encoder.encode(canonicalText(value));
}

export function toHex(bytes) {
  return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export function fromHex(text) {
  const hex = String(text);
  if (!/^([0-9a-f]{2})*$/.test(hex)) throw new Error(`not lower-case hex: ${hex.slice(0, 16)}`);
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

export async function sha256Hex(bytes) {
  return toHex(await subtle().digest("SHA-256", bytes));
}

function join(first, second) {
  const both = new Uint8Array(first.length + second.length);
  both.set(first, 0);
  both.set(second, first.length);
  return both;
}

/** `hex(SHA-256(bytes(previous) || canonical(content)))`: a link of the chain. */
export async function link(previous, content) {
  return sha256Hex(join(fromHex(previous), canonical(content)));
}

export async function seedsDigest(seeds) {
  return sha256Hex(canonical(seeds.map((entry) => ({ by: entry.by, seed: entry.seed }))));
}

/** An HMAC-SHA256 key of the server seed's bytes. */
export async function hmacKey(serverSeed) {
  return subtle().importKey("raw", serverSeed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** The server die at its place (docs/verifiable-dice.md#a-server-die). */
export async function derive(key, digest, session, roundNumber, who, purpose, index, sides) {
  const faces = BigInt(sides);
  const limit = SPAN - (SPAN % faces);
  for (let counter = 0; ; counter += 1) {
    const message = canonical([SCHEME, digest, session, roundNumber, who, purpose, index, sides, counter]);
    const mac = await subtle().sign("HMAC", key, message);
    const value = BigInt(`0x${toHex(mac)}`);
    if (value < limit) return Number(value % faces) + 1;
  }
}

/** Python's `repr` of a string, as the Python client's messages quote a purpose. */
function quoted(text) {
  if (typeof text !== "string") return text === null || text === undefined ? "None" : String(text);
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = text.replaceAll("\\", "\\\\").replaceAll(quote, `\\${quote}`);
  return `${quote}${body}${quote}`;
}

function plain(value) {
  return value === null || value === undefined ? "None" : String(value);
}

const HEX64 = /^[0-9a-f]{64}$/;
const HEX32 = /^[0-9a-f]{32}$/;
// A dice term (`3d6`, `d20`, `d%`) and the operations written right after it (`kh3`, `ro1`).
const TERM = /([0-9]*)d([0-9]+|%)((?:(?:k|p|rr|ro|ra|e|mi|ma)[lh<>]?[0-9]+)*)/g;
const OPERATION = /(k|p|rr|ro|ra|e|mi|ma)([lh<>]?)([0-9]+)/g;
const ANNOTATION = /\[[^\]]*\]/g;
const REROLLS = ["rr", "ro", "ra", "e"];
const SOURCES = ["rolled", "supplied"];
const WHY = ["ended", "not-needed", "surplus"];
const DICE_FROM = ["seat", "gm", "deadline", "roll-for-me"];
const STATUSES = ["active", "finished", "deleted"];
/** A seed's length: 1 to 256 code points (docs/verifiable-dice.md, "The seeds added"). */
export const MAX_SEED_CODE_POINTS = 256;
/** The fields of a served round rendered when served (not compared with the chained record). */
export const RENDERED = ["summary", "cards"];
const MAX_SIDES = 100000;
const MAX_INTEGER = Number.MAX_SAFE_INTEGER;

/** A part of the proof that is not what the page specifies (reported, never thrown out). */
class Malformed extends Error {}

/** A value of the proof as a message shows it: its canonical JSON. */
function shown(value) {
  try {
    return canonicalText(value);
  } catch {
    return String(value);
  }
}

const has = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const sameJson = (a, b) => canonicalText(a) === canonicalText(b);
const sortedKeys = (keys) => [...keys].sort(byCodePoint);

function object(value, what) {
  if (!isObject(value)) throw new Malformed(`${what}: not an object`);
  return value;
}

function list(value, what) {
  if (!Array.isArray(value)) throw new Malformed(`${what}: not a list`);
  return value;
}

function text(value, what) {
  if (typeof value !== "string") throw new Malformed(`${what}: not a string`);
  return value;
}

function integer(value, what, least = 0) {
  if (!Number.isInteger(value) || value < least) throw new Malformed(`${what}: not an integer of at least ${least}`);
  return value;
}

function hex64(value, what) {
  if (typeof value !== "string" || !HEX64.test(value)) throw new Malformed(`${what}: not 64 lower-case hex digits`);
  return value;
}

function keys(value, what, required, optional) {
  const missing = required.filter((key) => !has(value, key));
  const extra = Object.keys(value).filter((key) => !required.includes(key) && !optional.includes(key));
  if (missing.length) throw new Malformed(`${what}: missing ${sortedKeys(missing).join(", ")}`);
  if (extra.length) throw new Malformed(`${what}: unknown field(s) ${sortedKeys(extra).join(", ")}`);
}

/** Every number in a proof is an integer within ±(2**53 - 1). */
function checkNumbers(value, where) {
  const pending = [value];
  while (pending.length) {
    const item = pending.pop();
    if (item === null || typeof item === "boolean" || typeof item === "string") continue;
    if (typeof item === "number") {
      if (!Number.isInteger(item)) throw new Malformed(`${where}: a number that is not an integer`);
      if (Math.abs(item) > MAX_INTEGER) throw new Malformed(`${where}: ${item} is not an integer a JSON reader holds exactly`);
    } else if (Array.isArray(item)) {
      pending.push(...item);
    } else if (typeof item === "object") {
      pending.push(...Object.values(item));
    } else {
      throw new Malformed(`${where}: a number that is not an integer`);
    }
  }
}

/** Each dice term in the order written: [N, sides, whether a reroll or explosion follows it]. */
function terms(notation) {
  const bare = notation.replace(ANNOTATION, "");
  return [...bare.matchAll(TERM)].map((found) => [
    found[1] ? Number(found[1]) : 1,
    found[2] === "%" ? 10 : Number(found[2]),
    [...found[3].matchAll(OPERATION)].some((operation) => REROLLS.includes(operation[1])),
  ]);
}

/**
 * The sides of every die a roll in dice notation rolls, in the order it rolls them, and
 * whether that list is exact (false: a term rerolls or explodes).
 */
export function notationSides(notation) {
  const sides = [];
  let exact = true;
  for (const [count, size, more] of terms(notation)) {
    for (let index = 0; index < count; index += 1) sides.push(size);
    exact = exact && !more;
  }
  return [sides, exact];
}

/**
 * Whether `sides` are the sides the notation rolls, in order: each term's N dice of its
 * sides, one term after the other, a term that rerolls or explodes followed by any more of
 * its sides.
 */
export function sidesFollow(notation, sides) {
  const written = terms(notation);
  const seen = new Set();
  const stack = [[0, 0]];
  while (stack.length) {
    const [term, position] = stack.pop();
    const key = `${term}:${position}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (term === written.length) {
      if (position === sides.length) return true;
      continue;
    }
    const [count, size, more] = written[term];
    let end = position;
    if (count === 0) stack.push([term + 1, position]);
    while (end < sides.length && sides[end] === size && (more || end - position < count)) {
      end += 1;
      if (end - position >= count) stack.push([term + 1, end]);
    }
  }
  return false;
}

const MAX_NOTATION_DICE = 1000;

/** One selector over the kept dice, in their order (ties in order). */
function selectOne(dice, cat, number) {
  const kept = dice.filter((die) => die.kept);
  if (cat === "l") return [...kept].sort((a, b) => a.total - b.total).slice(0, number);
  if (cat === "h") return [...kept].sort((a, b) => b.total - a.total).slice(0, number);
  if (cat === "<") return kept.filter((die) => die.total < number);
  if (cat === ">") return kept.filter((die) => die.total > number);
  return kept.filter((die) => die.total === number);
}

/** The dice any of an operation's selectors picks (at most `most` in all). */
function selectDice(dice, selectors, most = null) {
  const chosen = [];
  for (const [cat, number] of selectors) {
    let found = selectOne(dice, cat, number);
    if (most !== null) {
      if (chosen.length >= most) break;
      found = found.slice(0, most - chosen.length);
    }
    for (const die of found) if (!chosen.includes(die)) chosen.push(die);
  }
  return chosen;
}

/** A term's operations in order; like ones written one after the other are one (not mi, ma). */
function operationsOf(text) {
  const merged = [];
  for (const found of text.matchAll(OPERATION)) {
    const selector = [found[2], Number(found[3])];
    const last = merged[merged.length - 1];
    if (last && found[1] !== "mi" && found[1] !== "ma" && last[0] === found[1]) last[1].push(selector);
    else merged.push([found[1], [selector]]);
  }
  return merged;
}

const inOrder = (dice, chosen) => dice.filter((die) => die.kept && chosen.includes(die));

class RunOut extends Error {}

function operate(dice, op, selectors, roll) {
  let chosen = selectDice(dice, selectors, op === "ra" ? 1 : null);
  if (op === "k") {
    for (const die of dice) if (die.kept && !chosen.includes(die)) die.kept = false;
  } else if (op === "p") {
    for (const die of chosen) die.kept = false;
  } else if (op === "rr" || op === "ro") {
    let again = inOrder(dice, chosen);
    while (again.length) {
      for (const die of again) die.total = roll().total;
      again = op === "rr" ? inOrder(dice, selectDice(dice, selectors)) : [];
    }
  } else if (op === "ra") {
    for (let index = 0; index < chosen.length; index += 1) dice.push(roll());
  } else if (op === "e") {
    const done = [];
    while (chosen.length) {
      for (let index = 0; index < chosen.length; index += 1) dice.push(roll());
      done.push(...chosen);
      chosen = selectDice(dice, selectors).filter((die) => !done.includes(die));
    }
  } else {
    const number = selectors[selectors.length - 1][1];
    for (const die of dice) {
      if (die.kept && (op === "mi" ? die.total < number : die.total > number)) die.total = number;
    }
  }
}

/**
 * The sides of every die `notation` rolls when its dice show `values` in order
 * (docs/verifiable-dice.md, "Dice in notation"), or null when the values run out or are left
 * over.
 */
export function replaySides(notation, values) {
  let position = 0;
  const sides = [];
  const bare = notation.replace(ANNOTATION, "");
  try {
    for (const found of bare.matchAll(TERM)) {
      const tens = found[2] === "%";
      const faces = tens ? 10 : Number(found[2]);
      const roll = () => {
        if (position >= values.length || sides.length >= MAX_NOTATION_DICE) throw new RunOut();
        const value = values[position];
        position += 1;
        sides.push(faces);
        return { total: tens ? 10 * (value - 1) : value, kept: true };
      };
      const dice = [];
      for (let index = 0; index < (found[1] ? Number(found[1]) : 1); index += 1) dice.push(roll());
      for (const [op, selectors] of operationsOf(found[3])) operate(dice, op, selectors, roll);
    }
  } catch (error) {
    if (error instanceof RunOut) return null;
    throw error;
  }
  return position === values.length ? sides : null;
}

const PROOF_FIELDS = [
  "scheme", "session", "kind", "status", "revealed", "commitment", "seeds", "seeds_digest",
  "seeds_open", "seeds_link", "chain_head", "rounds_played", "genesis", "genesis_link", "summary",
];
const GENESIS_FIELDS = ["scheme", "session", "kind", "commitment", "config", "start_rolls"];

function checkShape(proof) {
  const found = object(proof, "proof");
  keys(found, "proof", PROOF_FIELDS, ["server_seed", "rounds"]);
  if (found.scheme !== SCHEME) throw new Malformed(`scheme: ${shown(found.scheme)} is not ${SCHEME}`);
  text(found.session, "session");
  text(found.kind, "kind");
  text(found.summary, "summary");
  if (!STATUSES.includes(found.status)) throw new Malformed(`status: ${shown(found.status)} is none of ${STATUSES.join(", ")}`);
  for (const flag of ["revealed", "seeds_open"]) {
    if (typeof found[flag] !== "boolean") throw new Malformed(`${flag}: not true or false`);
  }
  for (const name of ["commitment", "seeds_digest", "chain_head", "genesis_link"]) hex64(found[name], name);
  if (found.seeds_link !== null) hex64(found.seeds_link, "seeds_link");
  integer(found.rounds_played, "rounds_played");
  for (const [position, entry] of list(found.seeds, "seeds").entries()) {
    const what = `seeds, seed ${position + 1}`;
    keys(object(entry, what), what, ["by", "seed"], []);
    text(entry.by, `${what}'s by`);
    text(entry.seed, `${what}'s seed`);
  }
  const genesis = object(found.genesis, "genesis");
  keys(genesis, "genesis", GENESIS_FIELDS, []);
  object(genesis.config, "genesis: config");
  list(genesis.start_rolls, "genesis: start_rolls");
  if (found.revealed) {
    if (!has(found, "server_seed") || !has(found, "rounds")) throw new Malformed("a revealed proof without its server_seed or rounds");
    hex64(found.server_seed, "server_seed");
    list(found.rounds, "rounds");
  } else if (has(found, "server_seed") || has(found, "rounds")) {
    throw new Malformed("a proof not revealed shows a server_seed or rounds");
  }
  return found;
}

/** A skill game's parties and their members' names, from its config (else none). */
function partiesOf(config) {
  const found = new Map();
  if (!Array.isArray(config.parties)) return found;
  for (const party of config.parties) {
    if (isObject(party) && typeof party.name === "string") {
      const members = Array.isArray(party.members) ? party.members : [];
      found.set(party.name, new Set(members.filter((member) => isObject(member) && typeof member.name === "string").map((member) => member.name)));
    }
  }
  return found;
}

/** Why `by` could not have supplied a die of `who` in round `number`, or null. */
export function supplierProblem(by, who, number, diceFrom, parties) {
  if (typeof by !== "string") return "supplied, but not said by whom";
  if (number === 0) return by === "gm" ? null : `supplied at creation by ${by}, not the GM`;
  const answered = diceFrom !== null && typeof who === "string" && has(diceFrom, who) ? diceFrom[who] : null;
  if (answered !== null && answered !== undefined) {
    // A seat's own dice are played under any answer (sent whole, or in part before the GM,
    // the seat itself or the deadline had the server roll the rest); the GM's only where
    // the GM answered.
    if (by === `seat:${who}` || (by === "gm" && answered === "gm")) return null;
    if (answered === "deadline" || answered === "roll-for-me") {
      return `supplied by ${by}, but the server rolled ${who}'s dice (${answered})`;
    }
    return `supplied by ${by}, but ${who}'s dice came from ${answered}`;
  }
  if (by === "gm") return null;
  if (by.startsWith("party:")) {
    const party = by.slice("party:".length);
    if (parties.has(party) && (who === party || parties.get(party).has(who))) return null;
    return `supplied by ${by}, who does not play ${plain(who)}`;
  }
  return `supplied by ${by}, who cannot supply ${plain(who)}'s dice here`;
}

function entrySides(entry, label) {
  const notation = entry.dice;
  const found = PLAIN.exec(notation);
  if (has(entry, "sides")) {
    const sides = list(entry.sides, label).map((value) => integer(value, `${label}: sides`, 1));
    if (found) throw new Malformed(`${label}: sides listed for plain dice ${notation}`);
    if (!sidesFollow(notation, sides)) throw new Malformed(`${label}: sides ${shown(sides)} do not follow from ${notation}`);
    const values = entry.values;
    const given = Array.isArray(values) && values.every((value) => Number.isInteger(value) && value >= 1);
    if (given && !sameJson(replaySides(notation, values), sides)) throw new Malformed(`${label}: ${notation} does not roll these dice with these values`);
    return sides;
  }
  if (!found) throw new Malformed(`${label}: dice in notation without their sides`);
  return Array.from({ length: Number(found[1]) }, () => Number(found[2]));
}

function checkEntry(entry, label) {
  const found = object(entry, label);
  keys(found, label, ["who", "purpose", "dice", "values", "source"], ["by", "sides"]);
  if (found.who !== null) text(found.who, `${label}: who`);
  text(found.purpose, `${label}: purpose`);
  text(found.dice, `${label}: dice`);
  if (!SOURCES.includes(found.source)) throw new Malformed(`${label}: source ${shown(found.source)} is neither rolled nor supplied`);
  if (found.source === "rolled" && has(found, "by")) throw new Malformed(`${label}: a server die said to be supplied by ${shown(found.by)}`);
  const values = list(found.values, label).map((value) => integer(value, `${label}: values`, 1));
  const sides = entrySides(found, label);
  if (values.length === 0 || values.length !== sides.length) throw new Malformed(`${label}: ${values.length} value(s) for ${sides.length} die/dice`);
  if (sides.some((faces) => faces < 1 || faces > MAX_SIDES)) throw new Malformed(`${label}: a die of sides outside 1..${MAX_SIDES}`);
  for (const [offset, value] of values.entries()) {
    if (value > sides[offset]) throw new Malformed(`${label}, die ${offset + 1}: ${value} on a d${sides[offset]}`);
  }
  return [found, sides];
}

async function checkDice(report, place, rolls, key, digest, session, number, diceFrom, parties) {
  const counts = new Map();
  for (const [position, raw] of rolls.entries()) {
    let label = `${place}, roll ${position + 1}`;
    if (isObject(raw)) label += ` (${plain(raw.who)}'s ${quoted(raw.purpose)}, ${plain(raw.dice)})`;
    let entry;
    let sides;
    try {
      [entry, sides] = checkEntry(raw, label);
    } catch (error) {
      if (!(error instanceof Malformed)) throw error;
      report.problems.push(error.message);
      continue;
    }
    const who = entry.who;
    const purpose = entry.purpose;
    if (entry.source === "supplied") {
      const wrong = supplierProblem(has(entry, "by") ? entry.by : undefined, who, number, diceFrom, parties);
      if (wrong !== null) report.problems.push(`${label}: ${wrong}`);
      continue;
    }
    if (key === null) continue;
    for (const [offset, value] of entry.values.entries()) {
      const faces = sides[offset];
      const counted = JSON.stringify([who, purpose]);
      const index = counts.get(counted) || 0;
      counts.set(counted, index + 1);
      const expected = await derive(key, digest, session, number, who, purpose, index, faces);
      report.diceChecked += 1;
      if (value !== expected) {
        report.problems.push(`${label}, die ${offset + 1} (index ${index}, d${faces}): recorded ${value}, derived ${expected}`);
      }
    }
  }
}

function checkUnused(report, place, outcome, number, diceFrom, parties) {
  if (!has(outcome, "unused")) return;
  const rolls = Array.isArray(outcome.rolls) ? outcome.rolls : [];
  const used = new Map();
  for (const entry of rolls) if (isObject(entry)) used.set(JSON.stringify([entry.who ?? null, entry.purpose ?? null]), entry);
  let unused;
  try {
    unused = list(outcome.unused, `${place}: unused`);
    if (unused.length === 0) throw new Malformed(`${place}: unused is listed but empty`);
  } catch (error) {
    if (!(error instanceof Malformed)) throw error;
    report.problems.push(error.message);
    return;
  }
  for (const [position, raw] of unused.entries()) {
    const label = `${place}, unused ${position + 1}`;
    let entry;
    try {
      entry = object(raw, label);
      keys(entry, label, ["who", "purpose", "values", "why", "by"], ["dice"]);
      if (entry.who !== null) text(entry.who, `${label}: who`);
      text(entry.purpose, `${label}: purpose`);
      const values = list(entry.values, label).map((value) => integer(value, `${label}: values`, 1));
      if (values.length === 0) throw new Malformed(`${label}: no values`);
      if (!WHY.includes(entry.why)) throw new Malformed(`${label}: why ${shown(entry.why)} is none of ${WHY.join(", ")}`);
    } catch (error) {
      if (!(error instanceof Malformed)) throw error;
      report.problems.push(error.message);
      continue;
    }
    const counted = JSON.stringify([entry.who, entry.purpose]);
    const wrong = supplierProblem(entry.by, entry.who, number, diceFrom, parties);
    if (wrong !== null) report.problems.push(`${label}: ${wrong}`);
    const rolled = used.get(counted);
    const notation = has(entry, "dice") ? entry.dice : rolled ? rolled.dice : undefined;
    const found = typeof notation === "string" ? PLAIN.exec(notation) : null;
    if (found && entry.values.some((value) => value > Number(found[2]))) report.problems.push(`${label}: a value above ${Number(found[2])}`);
    if (entry.why === "surplus") {
      if (!rolled || rolled.source !== "supplied") report.problems.push(`${label}: surplus of dice the round did not take supplied`);
    } else if (rolled) {
      report.problems.push(`${label}: ${entry.why}, but the round rolled it`);
    }
  }
}

function diceFromOf(outcome, place) {
  if (!has(outcome, "dice_from")) return null;
  const found = object(outcome.dice_from, `${place}: dice_from`);
  for (const [name, answered] of Object.entries(found)) {
    if (!DICE_FROM.includes(answered)) throw new Malformed(`${place}: dice_from of ${name} is ${shown(answered)}`);
  }
  return found;
}

/**
 * Each opening `{action, salt}` the proof shows this token is the one its party's sealed
 * choice was sealed with, in the round's inputs and its outcome alike (docs/verifiable-dice.md,
 * "Sealed choices").
 */
async function checkOpenings(problems, place, record) {
  if (!has(record, "openings")) return;
  const openings = record.openings;
  if (!isObject(openings)) {
    problems.push(`${place}: openings: not an object`);
    return;
  }
  for (const [party, opening] of Object.entries(openings)) {
    if (
      !isObject(opening) || !sameJson(sortedKeys(Object.keys(opening)), ["action", "salt"]) ||
      typeof opening.action !== "string" || typeof opening.salt !== "string" || !HEX32.test(opening.salt)
    ) {
      problems.push(`${place}: ${party}'s opening is malformed`);
      continue;
    }
    const made = await sha256Hex(canonical(opening));
    for (const part of ["inputs", "outcome"]) {
      const choices = record[part].choices;
      const choice = isObject(choices) && has(choices, party) ? choices[party] : null;
      if (!isObject(choice) || choice.seal !== made) {
        problems.push(`${place}: ${party}'s opening does not match its seal`);
        break;
      }
    }
  }
}

const ROUND_FIELDS = ["number", "inputs", "dice", "outcome", "link"];

async function checkRound(report, raw, expectedNumber, head, key, digest, session, parties) {
  const place = `round ${expectedNumber}`;
  const record = object(raw, place);
  keys(record, place, ROUND_FIELDS, ["openings"]);
  const number = record.number;
  if (number !== expectedNumber) report.problems.push(`${place}: numbered ${shown(number)}, expected round ${expectedNumber} here`);
  object(record.inputs, `${place}: inputs`);
  const dice = list(record.dice, `${place}: dice`);
  const outcome = object(record.outcome, `${place}: outcome`);
  const made = await link(head, { number: record.number, inputs: record.inputs, dice: record.dice, outcome: record.outcome });
  if (made !== record.link) report.problems.push(`${place}: its record does not match its link in the chain`);
  if (outcome.number !== expectedNumber) report.problems.push(`${place}: its outcome is not numbered ${expectedNumber}`);
  if (!has(outcome, "rolls")) report.problems.push(`${place}: its outcome lists no rolls`);
  else if (!sameJson(outcome.rolls, dice)) report.problems.push(`${place}: the outcome's rolls are not the round's dice`);
  let diceFrom = null;
  try {
    diceFrom = diceFromOf(outcome, place);
  } catch (error) {
    if (!(error instanceof Malformed)) throw error;
    report.problems.push(error.message);
  }
  await checkDice(report, place, dice, key, digest, session, expectedNumber, diceFrom, parties);
  checkUnused(report, place, outcome, expectedNumber, diceFrom, parties);
  await checkOpenings(report.problems, place, record);
  return hex64(record.link, `${place}: link`);
}

/** A chained outcome as the served round shows it, less the rendered parts. */
function servedView(outcome, record) {
  const view = {};
  for (const [name, value] of Object.entries(outcome)) if (!RENDERED.includes(name)) view[name] = value;
  const openings = isObject(record.openings) ? record.openings : {};
  if (isObject(view.choices)) {
    const choices = {};
    for (const [party, choice] of Object.entries(view.choices)) {
      choices[party] = has(openings, party) && isObject(choice) && has(choice, "seal")
        ? { action: openings[party].action, bid: choice.bid ?? null }
        : choice;
    }
    view.choices = choices;
  }
  return view;
}

function checkServed(report, rounds, served) {
  if (served.length !== rounds.length) report.problems.push(`served rounds: ${served.length} served, ${rounds.length} chained`);
  for (let position = 0; position < Math.min(served.length, rounds.length); position += 1) {
    const record = rounds[position];
    const shownRound = served[position];
    const place = `round ${position + 1}`;
    if (!isObject(record) || !isObject(record.outcome)) continue;
    if (!isObject(shownRound)) {
      report.problems.push(`${place}: the served round is not an object`);
      continue;
    }
    const chained = servedView(record.outcome, record);
    const rest = {};
    for (const [name, value] of Object.entries(shownRound)) if (!RENDERED.includes(name)) rest[name] = value;
    if (isObject(rest.choices) && isObject(chained.choices)) {
      rest.choices = { ...rest.choices };
      for (const [party, choice] of Object.entries(chained.choices)) {
        if (isObject(choice) && has(choice, "seal")) {
          const servedChoice = rest.choices[party];
          if (isObject(servedChoice) && sameJson(Object.keys(servedChoice), ["bid"]) && sameJson(servedChoice.bid, choice.bid ?? null)) rest.choices[party] = choice;
        }
      }
    }
    if (!sameJson(rest, chained)) report.problems.push(`${place}: the round served is not the round chained`);
  }
}

function checkExpected(report, proof, links, expected) {
  const problems = report.problems;
  if (expected.session != null && proof.session !== expected.session) problems.push(`session: the proof is of ${proof.session}, not ${expected.session}`);
  if (expected.kind != null && proof.kind !== expected.kind) problems.push(`kind: the proof is of ${proof.kind}, not ${expected.kind}`);
  if (expected.commitment != null && proof.commitment !== expected.commitment) problems.push("commitment: not the one recorded before the first roll");
  if (expected.config != null && !sameJson(proof.genesis.config, expected.config)) problems.push("genesis: its config is not the session's");
  const listed = proof.seeds.map((entry) => canonicalText({ by: entry.by, seed: entry.seed }));
  for (const seed of expected.seeds || []) {
    if (!listed.includes(canonicalText({ by: seed.by, seed: seed.seed }))) problems.push(`seeds: ${seed.by}'s seed is not among the seeds listed`);
  }
  const heads = Object.entries(expected.heads || {}).map(([count, head]) => [Number(count), head]).sort((a, b) => a[0] - b[0]);
  for (const [count, head] of heads) {
    if (count === 0) {
      if (head !== proof.genesis_link && head !== proof.seeds_link) problems.push("chain: the head recorded before the first round is not this chain's");
    } else if (links !== null && count <= links.length) {
      if (links[count - 1] !== head) problems.push(`chain: link ${count} is not the head recorded after round ${count}`);
    } else if (count === proof.rounds_played) {
      if (proof.chain_head !== head) problems.push(`chain: link ${count} is not the head recorded after round ${count}`);
    } else if (count > proof.rounds_played) {
      problems.push(`chain: a head was recorded after round ${count}, but only ${proof.rounds_played} are chained`);
    } else {
      report.left.push(`the head recorded after round ${count} (link ${count})`);
    }
  }
}

async function checkSeeds(report, proof) {
  const problems = report.problems;
  const seeds = proof.seeds;
  const bys = seeds.map((entry) => entry.by);
  const twice = [...new Set(bys.filter((by) => bys.filter((other) => other === by).length > 1))].sort(byCodePoint);
  for (const by of twice) problems.push(`seeds: ${by} added more than one seed`);
  for (const [position, entry] of seeds.entries()) {
    const length = [...entry.seed].length;
    if (entry.by !== "gm" && !entry.by.startsWith("seat:") && !entry.by.startsWith("party:")) {
      problems.push(`seeds, seed ${position + 1}: added by ${shown(entry.by)}, no token's role`);
    }
    if (length < 1 || length > MAX_SEED_CODE_POINTS) {
      problems.push(`seeds, seed ${position + 1}: ${length} code points, not 1 to ${MAX_SEED_CODE_POINTS}`);
    }
  }
  const digest = await seedsDigest(seeds);
  if (digest !== proof.seeds_digest) problems.push("seeds: seeds_digest is not the digest of the seeds listed");
  return digest;
}

async function verifyAll(report, raw, expected, served) {
  const problems = report.problems;
  checkNumbers(raw, "proof");
  const proof = checkShape(raw);
  const session = proof.session;
  const genesis = proof.genesis;
  const parties = partiesOf(genesis.config);
  for (const name of ["scheme", "session", "kind", "commitment"]) {
    if (genesis[name] !== proof[name]) problems.push(`genesis: its ${name} is not the proof's`);
  }
  if ((await sha256Hex(canonical(genesis))) !== proof.genesis_link) problems.push("genesis: its record does not match its link in the chain");
  const digest = await checkSeeds(report, proof);
  const seedsLink = proof.seeds_link;
  const status = proof.status;
  if (proof.seeds_open && (status !== "active" || seedsLink !== null)) problems.push("seeds: still open, yet the session is over or its seeds chained");
  let head;
  if (seedsLink === null) {
    if (proof.seeds_open === false && status !== "deleted") problems.push("seeds: closed but never chained (seeds_link is null)");
    if (proof.rounds_played !== 0 || (Array.isArray(proof.rounds) && proof.rounds.length > 0)) problems.push("seeds: rounds chained without the seeds' link");
    head = proof.genesis_link;
  } else {
    if (proof.seeds_open) problems.push("seeds: chained, yet still open");
    const made = await link(proof.genesis_link, { seeds: proof.seeds.map((entry) => ({ by: entry.by, seed: entry.seed })) });
    if (made !== seedsLink) problems.push("seeds: the seeds listed are not the ones chained (seeds_link)");
    head = seedsLink;
  }
  if (proof.revealed !== (status !== "active")) problems.push(`status: ${status}, yet revealed is ${proof.revealed}`);
  let key = null;
  if (proof.revealed) {
    const seed = fromHex(proof.server_seed);
    key = await hmacKey(seed);
    if ((await sha256Hex(seed)) !== proof.commitment) problems.push("server seed: its SHA-256 is not the commitment");
  }
  await checkDice(report, "start (round 0)", genesis.start_rolls, key, await seedsDigest([]), session, 0, null, parties);
  let links = null;
  if (proof.revealed) {
    links = [];
    for (const [position, record] of proof.rounds.entries()) {
      const before = problems.length;
      head = await checkRound(report, record, position + 1, head, key, digest, session, parties);
      links.push(head);
      report.roundsChecked += 1;
      report.rounds.push({ number: position + 1, ok: problems.length === before });
    }
    if (proof.rounds.length !== proof.rounds_played) problems.push(`rounds: ${proof.rounds.length} listed, ${proof.rounds_played} played`);
    if (head !== proof.chain_head) problems.push("chain: the last link is not the session's chain head");
  } else if (proof.rounds_played === 0 && proof.chain_head !== head) {
    problems.push("chain: no round chained, yet the head is not the last link");
  }
  if (served != null && proof.revealed) checkServed(report, proof.rounds, served);
  if (expected != null) checkExpected(report, proof, links, expected);
  if (!proof.revealed) {
    report.left.push(`the server seed, and with it every server die and the links of ${proof.rounds_played} round(s) to the head ${proof.chain_head.slice(0, 16)}…`);
    problems.push("the server seed is not revealed yet: the session is still running");
  }
}

/**
 * Check a proof (revealed: every round, oldest first) in the page's order; a malformed part
 * is reported, never thrown. `expected`: what the player recorded before (`{session, kind,
 * commitment, config, heads: {rounds chained: head}, seeds: [{by, seed}]}`); `served`: the
 * rounds `GET …/rounds` served the same token. `rounds`: each round checked, `{number, ok}`.
 */
export async function verifyProof(proof, { expected = null, served = null } = {}) {
  const session = isObject(proof) && typeof proof.session === "string" ? proof.session : "";
  const report = { session, diceChecked: 0, roundsChecked: 0, problems: [], left: [], rounds: [], ok: false };
  try {
    await verifyAll(report, proof, expected, served);
  } catch (error) {
    if (error instanceof Malformed) report.problems.push(error.message);
    else if (error && error.name === "NotSupportedError" || error && /crypto\.subtle/.test(String(error.message))) throw error;
    else report.problems.push(`proof: malformed (${error && error.name}: ${error && error.message})`);
  }
  report.ok = report.problems.length === 0;
  return report;
}

/**
 * What can be checked before the reveal (the genesis, the commitment, the seeds, their link,
 * what the player recorded): the report of `verifyProof` without its one problem "not
 * revealed yet", `left` naming what waits for the reveal.
 */
export async function verifyUnrevealed(proof, options = {}) {
  const report = await verifyProof(proof, options);
  report.problems = report.problems.filter((problem) => problem !== "the server seed is not revealed yet: the session is still running");
  report.ok = report.problems.length === 0;
  report.revealed = false;
  return report;
}

/**
 * What a page was shown of a verifiable session, to check its proof against later
 * (docs/verifiable-dice.md, "Verifying a session", step 9): `memory` (null: nothing yet) merged
 * with `shown`, a view of the session (`{id, kind, commitment, chain_head, round}`), and with
 * `mine`, this page's own seed `{by, seed}` once added. Answers `{memory, conflicts}`:
 * `conflicts` name each head shown for a round count that differs from the one kept (the
 * server showed this page two chains); the first head kept for a count stays.
 * `memory` is `{session, kind, commitment, heads: {rounds played: head}, seeds}`, what
 * `verifyProof` takes as `expected`.
 */
export function remember(memory, shown, { mine = null, kind = null } = {}) {
  const kept = memory
    ? { ...memory, heads: { ...(memory.heads || {}) }, seeds: [...(memory.seeds || [])] }
    : { session: null, kind, commitment: null, heads: {}, seeds: [] };
  const conflicts = [];
  if (isObject(shown)) {
    if (kept.session === null && typeof shown.id === "string") kept.session = shown.id;
    if (kept.kind === null && typeof kind === "string") kept.kind = kind;
    if (typeof shown.commitment === "string") {
      if (kept.commitment === null) kept.commitment = shown.commitment;
      else if (kept.commitment !== shown.commitment) conflicts.push("commitment: not the one shown before");
    }
    if (typeof shown.chain_head === "string" && Number.isInteger(shown.round)) {
      const count = String(shown.round);
      if (shown.round === 0 || !has(kept.heads, count)) kept.heads[count] = shown.chain_head;
      else if (kept.heads[count] !== shown.chain_head) {
        conflicts.push(`chain: the head shown after round ${count} is not the one shown before`);
      }
    }
  }
  if (isObject(mine) && typeof mine.by === "string" && typeof mine.seed === "string") {
    if (!kept.seeds.some((entry) => entry.by === mine.by && entry.seed === mine.seed)) kept.seeds.push({ by: mine.by, seed: mine.seed });
  }
  return { memory: kept, conflicts };
}

/** The one line a page says of a proof not revealed yet, and of what was checked of it. */
export function beforeReveal(proof, report, t = english) {
  const now = t("Now: its commitment {commitment}… is fixed, {seeds} seed(s) added, {rounds} round(s) chained to the head {head}….", {
    commitment: String(proof.commitment).slice(0, 12),
    seeds: (proof.seeds || []).length,
    rounds: proof.rounds_played,
    head: String(proof.chain_head).slice(0, 12),
  });
  const checked = report.ok
    ? (proof.seeds_link ? t("The genesis and the seeds' link check out.") : t("The genesis checks out."))
    : problemsLine(report, t);
  return t("The dice cannot be checked yet: the server's seed is revealed when the session ends. {now} {checked}", { now, checked });
}

/** A report's problems, in one line: each as the verifier words it (the Python client's
 * words, which the tests compare), after the page's own words. */
function problemsLine(report, t) {
  return t("{count} problem(s): {problems}", { count: report.problems.length, problems: report.problems.join("; ") });
}

/** The one line a page says of a report (`t`: the page's words, i18n.js). */
export function reportLine(report, t = english) {
  if (report.ok) {
    return t("Every die and link checks out ({dice} dice, {rounds} rounds).", { dice: report.diceChecked, rounds: report.roundsChecked });
  }
  return problemsLine(report, t);
}
