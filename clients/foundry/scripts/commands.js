// The `/arbiter` chat command, parsed into what it asks for. Pure: no Foundry global is read.

export const KINDS = /** @type {const} */ ({
  "arm-wrestle": { path: "arm-wrestles", title: "Arm wrestle" },
  regular: { path: "regular-contests", title: "Regular contest" },
});

/**
 * @typedef {{command: "quick", a: {name: string, skill: number}, b: {name: string, skill: number}}
 *   | {command: "start", kind: keyof typeof KINDS}
 *   | {command: "follow", kind: string, id: string, token: string}
 *   | {command: "unfollow", id: string}
 *   | {command: "play", id: string | null}
 *   | {command: "roll", id: string | null}
 *   | {command: "help", error?: string}} Command
 */

const QUICK = /^(.+?)\s+(-?\d{1,3})\s+vs\.?\s+(.+?)\s+(-?\d{1,3})$/i;

export const HELP = [
  "/arbiter quick Lydia 14 vs Ogre 11: a GURPS quick contest, rolled now",
  "/arbiter arm-wrestle | regular: start a contest (selected tokens fill in the names)",
  "/arbiter play [id]: play the next round, waiting for the seats' dice",
  "/arbiter roll [id]: roll your own seat's dice in a round that waits for them",
  "/arbiter follow <kind> <id> <token>: follow a session made elsewhere into chat",
  "/arbiter unfollow <id>: stop following it",
];

/**
 * @param {string} message the whole chat line
 * @returns {Command | null} null when the line is not an /arbiter command
 */
export function parse(message) {
  const match = /^\/arbiter(?:\s+([\s\S]*))?$/i.exec(message.trim());
  if (match === null) return null;
  const rest = (match[1] ?? "").trim();
  const [verb = "", ...words] = rest.split(/\s+/);
  const tail = rest.slice(verb.length).trim();
  switch (verb.toLowerCase()) {
    case "quick": {
      const quick = QUICK.exec(tail);
      if (quick === null) return { command: "help", error: "Write it as: /arbiter quick Lydia 14 vs Ogre 11" };
      return {
        command: "quick",
        a: { name: quick[1].trim(), skill: Number(quick[2]) },
        b: { name: quick[3].trim(), skill: Number(quick[4]) },
      };
    }
    case "arm-wrestle":
    case "regular":
      return { command: "start", kind: verb.toLowerCase() === "regular" ? "regular" : "arm-wrestle" };
    case "follow":
      if (words.length !== 3) return { command: "help", error: "Write it as: /arbiter follow <kind> <id> <token>" };
      return { command: "follow", kind: words[0], id: words[1], token: words[2] };
    case "unfollow":
      if (words.length !== 1) return { command: "help", error: "Write it as: /arbiter unfollow <id>" };
      return { command: "unfollow", id: words[0] };
    case "play":
      return { command: "play", id: words[0] ?? null };
    case "roll":
      return { command: "roll", id: words[0] ?? null };
    default:
      return { command: "help", error: verb ? `Unknown: ${verb}` : undefined };
  }
}
