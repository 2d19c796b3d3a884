// The `/arbiter` chat command, parsed into what it asks for. Pure: no Foundry global is read;
// what it says to the user are keys of the module's translations (lang/*.json).

/** The long-running kinds a GM starts from Foundry: the command's word, the API's path. */
export const KINDS = /** @type {const} */ ({
  "arm-wrestle": { path: "arm-wrestles", title: "ARBITER.Kind.ArmWrestle" },
  regular: { path: "regular-contests", title: "ARBITER.Kind.Regular" },
  race: { path: "races", title: "ARBITER.Kind.Race" },
  chase: { path: "chases", title: "ARBITER.Kind.Chase" },
  "skill-game": { path: "skill-games", title: "ARBITER.Kind.SkillGame" },
});

/**
 * @typedef {{command: "quick", a: {name: string, skill: number}, b: {name: string, skill: number}}
 *   | {command: "start", kind: keyof typeof KINDS}
 *   | {command: "follow", kind: string, id: string, token: string}
 *   | {command: "unfollow", id: string}
 *   | {command: "play", id: string | null}
 *   | {command: "roll", id: string | null}
 *   | {command: "help", error?: string, verb?: string}} Command
 */

const QUICK = /^(.+?)\s+(-?\d{1,3})\s+vs\.?\s+(.+?)\s+(-?\d{1,3})$/i;

/** The help, one line a command (translation keys). */
export const HELP = [
  "ARBITER.Help.Quick",
  "ARBITER.Help.Start",
  "ARBITER.Help.Play",
  "ARBITER.Help.Roll",
  "ARBITER.Help.Follow",
  "ARBITER.Help.Unfollow",
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
  const word = verb.toLowerCase();
  if (Object.hasOwn(KINDS, word)) return { command: "start", kind: /** @type {keyof typeof KINDS} */ (word) };
  switch (word) {
    case "quick": {
      const quick = QUICK.exec(tail);
      if (quick === null) return { command: "help", error: "ARBITER.Usage.Quick" };
      return {
        command: "quick",
        a: { name: quick[1].trim(), skill: Number(quick[2]) },
        b: { name: quick[3].trim(), skill: Number(quick[4]) },
      };
    }
    case "follow":
      if (words.length !== 3) return { command: "help", error: "ARBITER.Usage.Follow" };
      return { command: "follow", kind: words[0], id: words[1], token: words[2] };
    case "unfollow":
      if (words.length !== 1) return { command: "help", error: "ARBITER.Usage.Unfollow" };
      return { command: "unfollow", id: words[0] };
    case "play":
      return { command: "play", id: words[0] ?? null };
    case "roll":
      return { command: "roll", id: words[0] ?? null };
    default:
      return verb ? { command: "help", error: "ARBITER.Usage.Unknown", verb } : { command: "help" };
  }
}
