// Chat cards: the summary line Arbiter wrote and every die behind it, as HTML for Foundry's chat
// log. Every text the players or the service chose is escaped; nothing of it acts as markup.

/** @param {unknown} text */
export function escape(text) {
  return String(text ?? "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/**
 * @typedef {{who: string | null, purpose: string, dice: string, values: number[],
 *   source: string, by?: string}} RollEntry
 */

/**
 * The dice of one result: one line per (who, purpose), each die in a box, supplied dice marked.
 * @param {RollEntry[] | undefined} rolls
 * @param {string} [supplied] what marks a supplied die (in the reader's language)
 */
export function diceList(rolls, supplied = "supplied") {
  if (!rolls || rolls.length === 0) return "";
  const lines = rolls.map((roll) => {
    const dice = roll.values.map((value) => `<span class="arbiter-die">${escape(value)}</span>`).join("");
    const who = roll.who === null ? "" : `<span class="arbiter-who">${escape(roll.who)}</span> `;
    const source = roll.source === "supplied" ? ` <em class="arbiter-source">(${escape(roll.by ?? supplied)})</em>` : "";
    return `<li data-who="${escape(roll.who ?? "")}" data-purpose="${escape(roll.purpose)}">${who}${escape(roll.purpose)} ${escape(roll.dice)}: ${dice}${source}</li>`;
  });
  return `<ol class="arbiter-dice">${lines.join("")}</ol>`;
}

/**
 * @typedef {{name: string | null, purpose: string, dice: string, values: number[],
 *   modifier: number | null, total: number | null,
 *   against: {name?: string, total?: number, dc?: number, skill?: number} | null,
 *   margin: number | null, success: boolean | null, source: string, text: string,
 *   note: string}} CardDie
 * @typedef {{name: string, kind: string, delta: number | null, to: number, text: string}} CardChange
 * @typedef {{number: number, dice: CardDie[], changes: CardChange[], winner: string | null,
 *   finished: boolean, text: string}} RoundCard
 */

/**
 * A round's cards (Arbiter's `cards`, docs/api.md#round-cards) as Foundry shows a contested
 * roll: one line per check, then what it moved, in Arbiter's own words — written in the
 * language the client asked it in, as the table page and the Discord markdown show them.
 * @param {RoundCard[] | undefined} cards
 */
export function roundCards(cards) {
  if (!Array.isArray(cards) || cards.length === 0) return "";
  return cards.map((round) => {
    const checks = (round.dice ?? []).filter((/** @type {CardDie} */ die) => typeof die.total === "number").map((/** @type {CardDie} */ die) => {
      const note = die.note ? ` <span class="arbiter-margin">(${escape(die.note)})</span>` : "";
      const outcome = die.success === true ? " arbiter-success" : die.success === false ? " arbiter-failure" : "";
      return `<li class="arbiter-check${outcome}">${escape(die.text)}${note}</li>`;
    });
    const changes = (round.changes ?? []).map((/** @type {CardChange} */ change) => escape(change.text));
    return `<div class="arbiter-round-card" title="${escape(round.text)}"><ul class="arbiter-checks">${checks.join("")}</ul>${changes.length ? `<p class="arbiter-change">→ ${changes.join(", ")}</p>` : ""}</div>`;
  }).join("");
}

/**
 * A card: a title, the summary line, the dice, and buttons (each a data-action the chat log's
 * listener answers).
 * @param {{title: string, summary?: string, rolls?: RollEntry[], supplied?: string,
 *   cards?: RoundCard[], buttons?: {action: string, label: string, only?: "gm" | "players"}[],
 *   footer?: string, lines?: string[]}} card
 */
export function card(card) {
  const buttons = (card.buttons ?? [])
    .map((button) => {
      const only = button.only === "gm" ? " data-gm-only" : button.only === "players" ? " data-players-only" : "";
      return `<button type="button" data-arbiter-action="${escape(button.action)}"${only}>${escape(button.label)}</button>`;
    })
    .join("");
  return [
    `<div class="arbiter-card">`,
    `<header class="arbiter-title">${escape(card.title)}</header>`,
    card.summary ? `<p class="arbiter-summary">${escape(card.summary)}</p>` : "",
    card.lines?.length ? `<ul class="arbiter-lines">${card.lines.map((line) => `<li>${escape(line)}</li>`).join("")}</ul>` : "",
    roundCards(card.cards),
    diceList(card.rolls, card.supplied),
    buttons ? `<div class="arbiter-buttons">${buttons}</div>` : "",
    card.footer ? `<footer class="arbiter-footer">${escape(card.footer)}</footer>` : "",
    `</div>`,
  ].join("");
}
