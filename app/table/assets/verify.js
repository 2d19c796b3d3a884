// Verifiable dice, checked in the browser (or in Node 20): the scheme of
// docs/verifiable-dice.md (`arbiter-verifiable-dice-v1`) with WebCrypto alone. No DOM code
// here, so that it runs and is tested on its own (tests/clients/test_table_verify.py).
//
// `verifyProof(proof)` takes a revealed proof with every round (oldest first) and answers
// `{ok, session, diceChecked, roundsChecked, problems}`; each problem names its place in the
// words of the Python client's verifier (arbiter_client.verify), so both say the same.

export const SCHEME = "arbiter-verifiable-dice-v1";

const SPAN = 1n << 256n;
const PLAIN = /^([0-9]+)d([0-9]+)$/;
const encoder = new TextEncoder();

function subtle() {
  const found = globalThis.crypto && globalThis.crypto.subtle;
  if (!found) throw new Error("This page cannot check dice here: the browser's WebCrypto (crypto.subtle) needs a secure page (https, or http on this computer).");
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

function sidesOf(entry) {
  if (Array.isArray(entry.sides)) return entry.sides.map(Number);
  const found = PLAIN.exec(String(entry.dice ?? ""));
  if (!found) return null;
  return Array.from({ length: Number(found[1]) }, () => Number(found[2]));
}

async function checkDice(report, place, rolls, key, digest, session, number) {
  const counts = new Map();
  for (const [position, entry] of rolls.entries()) {
    const who = entry.who ?? null;
    const purpose = entry.purpose;
    const label = `${place}, roll ${position + 1} (${plain(who)}'s ${quoted(purpose)}, ${plain(entry.dice)})`;
    if (entry.source !== "rolled") {
      if (!("by" in entry)) report.problems.push(`${label}: supplied, but not said by whom`);
      continue;
    }
    const values = entry.values || [];
    const sides = sidesOf(entry);
    if (sides === null || sides.length !== values.length) {
      report.problems.push(`${label}: its dice's sides are not known`);
      continue;
    }
    for (const [offset, value] of values.entries()) {
      const faces = sides[offset];
      const counted = JSON.stringify([who, String(purpose)]);
      const index = counts.get(counted) || 0;
      counts.set(counted, index + 1);
      const expected = await derive(key, digest, session, number, who, String(purpose), index, faces);
      report.diceChecked += 1;
      if (value !== expected) {
        report.problems.push(`${label}, die ${offset + 1} (index ${index}, d${faces}): recorded ${value}, derived ${expected}`);
      }
    }
  }
}

/**
 * Each opening `{action, salt}` the proof shows this token is the one its party's sealed
 * choice was sealed with, in the round's inputs and its outcome alike (docs/verifiable-dice.md,
 * "Sealed choices").
 */
async function checkOpenings(problems, place, record) {
  for (const [party, opening] of Object.entries(record.openings || {})) {
    const made = await sha256Hex(canonical(opening));
    for (const part of ["inputs", "outcome"]) {
      const choice = ((record[part] || {}).choices || {})[party] || {};
      if (choice.seal !== made) {
        problems.push(`${place}: ${party}'s opening does not match its seal`);
        break;
      }
    }
  }
}

/** Check a revealed proof, every round listed: see the head of this module. */
export async function verifyProof(proof) {
  const session = String(proof.session ?? "");
  // `rounds`: each round checked, `{number, ok}`, ok when nothing of it failed.
  const report = { session, diceChecked: 0, roundsChecked: 0, problems: [], rounds: [], ok: false };
  const problems = report.problems;
  const finish = () => {
    report.ok = problems.length === 0;
    return report;
  };
  if (proof.scheme !== SCHEME) {
    problems.push(`scheme: ${quoted(proof.scheme)} is not ${SCHEME}`);
    return finish();
  }
  if (!proof.revealed) {
    problems.push("the server seed is not revealed yet: the session is still running");
    return finish();
  }
  const seed = fromHex(proof.server_seed);
  const key = await hmacKey(seed);
  const commitment = proof.commitment;
  if ((await sha256Hex(seed)) !== commitment) problems.push("server seed: its SHA-256 is not the commitment");
  const seeds = proof.seeds || [];
  const digest = await seedsDigest(seeds);
  const genesis = proof.genesis || {};
  if (genesis.commitment !== commitment || genesis.session !== session) {
    problems.push("genesis: its commitment or session is not the proof's");
  }
  let head = await sha256Hex(canonical(genesis));
  if (head !== proof.genesis_link) {
    problems.push("genesis: its record does not match its link in the chain");
    head = String(proof.genesis_link);
  }
  await checkDice(report, "start (round 0)", genesis.start_rolls || [], key, await seedsDigest([]), session, 0);
  const seedsLink = proof.seeds_link ?? null;
  if (seedsLink !== null) {
    const made = await link(head, { seeds: seeds.map((entry) => ({ by: entry.by, seed: entry.seed })) });
    if (made !== seedsLink) problems.push("seeds: the seeds listed are not the ones chained (seeds_link)");
    head = seedsLink;
  }
  const rounds = proof.rounds || [];
  for (const [position, record] of rounds.entries()) {
    const expectedNumber = position + 1;
    const number = record.number;
    const before = problems.length;
    const place = `round ${plain(number)}`;
    if (number !== expectedNumber) problems.push(`${place}: expected round ${expectedNumber} here`);
    const content = {
      number: record.number ?? null,
      inputs: record.inputs ?? null,
      dice: record.dice ?? null,
      outcome: record.outcome ?? null,
    };
    const made = await link(head, content);
    if (made !== record.link) problems.push(`${place}: its record does not match its link in the chain`);
    const outcome = record.outcome || {};
    if ("rolls" in outcome && canonicalText(outcome.rolls) !== canonicalText(record.dice ?? null)) {
      problems.push(`${place}: the outcome's rolls are not the round's dice`);
    }
    await checkDice(report, place, record.dice || [], key, digest, session, expectedNumber);
    await checkOpenings(problems, place, record);
    head = String(record.link);
    report.roundsChecked += 1;
    report.rounds.push({ number: expectedNumber, ok: problems.length === before });
  }
  if (rounds.length !== proof.rounds_played) problems.push(`rounds: ${rounds.length} listed, ${plain(proof.rounds_played)} played`);
  if (head !== proof.chain_head) problems.push("chain: the last link is not the session's chain head");
  return finish();
}

/**
 * What can be checked before the reveal: the genesis's commitment and session are the proof's,
 * the genesis's link is `genesis_link`, and the seeds listed are the ones chained
 * (`seeds_link`, once set). Answers a report as `verifyProof` does, with no die checked.
 */
export async function verifyUnrevealed(proof) {
  const session = String(proof.session ?? "");
  const report = { session, diceChecked: 0, roundsChecked: 0, problems: [], ok: false, revealed: false };
  const problems = report.problems;
  if (proof.scheme !== SCHEME) {
    problems.push(`scheme: ${quoted(proof.scheme)} is not ${SCHEME}`);
  } else {
    const genesis = proof.genesis || {};
    if (genesis.commitment !== proof.commitment || genesis.session !== session) {
      problems.push("genesis: its commitment or session is not the proof's");
    }
    let head = await sha256Hex(canonical(genesis));
    if (head !== proof.genesis_link) {
      problems.push("genesis: its record does not match its link in the chain");
      head = String(proof.genesis_link);
    }
    const seedsLink = proof.seeds_link ?? null;
    if (seedsLink !== null) {
      const seeds = (proof.seeds || []).map((entry) => ({ by: entry.by, seed: entry.seed }));
      if ((await link(head, { seeds })) !== seedsLink) {
        problems.push("seeds: the seeds listed are not the ones chained (seeds_link)");
      }
    }
  }
  report.ok = problems.length === 0;
  return report;
}

/** The one line a page says of a proof not revealed yet, and of what was checked of it. */
export function beforeReveal(proof, report) {
  const now = `Now: its commitment ${String(proof.commitment).slice(0, 12)}… is fixed, ${(proof.seeds || []).length} seed(s) added, ` +
    `${proof.rounds_played} round(s) chained to the head ${String(proof.chain_head).slice(0, 12)}….`;
  const checked = report.ok
    ? (proof.seeds_link ? "The genesis and the seeds' link check out." : "The genesis checks out.")
    : `${report.problems.length} problem(s): ${report.problems.join("; ")}`;
  return `The dice cannot be checked yet: the server's seed is revealed when the session ends. ${now} ${checked}`;
}

/** The one line a page says of a report. */
export function reportLine(report) {
  if (report.ok) {
    return `Every die and link checks out (${report.diceChecked} dice, ${report.roundsChecked} rounds).`;
  }
  return `${report.problems.length} problem(s): ${report.problems.join("; ")}`;
}
