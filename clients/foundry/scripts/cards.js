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
 * A card: a title, the summary line, the dice, and buttons (each a data-action the chat log's
 * listener answers).
 * @param {{title: string, summary?: string, rolls?: RollEntry[], supplied?: string,
 *   buttons?: {action: string, label: string, only?: "gm" | "players"}[], footer?: string,
 *   lines?: string[]}} card
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
    diceList(card.rolls, card.supplied),
    buttons ? `<div class="arbiter-buttons">${buttons}</div>` : "",
    card.footer ? `<footer class="arbiter-footer">${escape(card.footer)}</footer>` : "",
    `</div>`,
  ].join("");
}
