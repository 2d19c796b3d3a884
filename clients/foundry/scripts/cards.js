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

/** A signed number: `+5`, `−3`. @param {number} value */
function signed(value) {
  return value >= 0 ? `+${value}` : `−${-value}`;
}

/**
 * @typedef {{name: string | null, purpose: string, dice: string, values: number[],
 *   modifier: number | null, total: number | null,
 *   against: {name?: string, total?: number, dc?: number, skill?: number} | null,
 *   margin: number | null, success: boolean | null, source: string}} CardDie
 * @typedef {{name: string, kind: string, delta: number | null, to: number}} CardChange
 * @typedef {{number: number, dice: CardDie[], changes: CardChange[], winner: string | null,
 *   finished: boolean, text: string}} RoundCard
 */

/**
 * A round's cards (Arbiter's `cards`, docs/api.md#round-cards) as Foundry shows a contested
 * roll: one line per check (dice, modifier, total, against what, margin), then what it moved.
 * @param {RoundCard[] | undefined} cards
 */
export function roundCards(cards) {
  if (!Array.isArray(cards) || cards.length === 0) return "";
  return cards.map((round) => {
    const checks = (round.dice ?? []).filter((/** @type {CardDie} */ die) => typeof die.total === "number").map((/** @type {CardDie} */ die) => {
      const modifier = die.modifier ? signed(die.modifier) : "";
      const against = die.against ?? {};
      const versus = against.name !== undefined ? ` vs ${escape(against.name)} ${escape(against.total)}`
        : against.dc !== undefined ? ` vs DC ${escape(against.dc)}`
          : against.skill !== undefined ? ` vs skill ${escape(against.skill)}` : "";
      const margin = typeof die.margin === "number" ? ` <span class="arbiter-margin">(${signed(die.margin)})</span>` : "";
      const outcome = die.success === true ? " arbiter-success" : die.success === false ? " arbiter-failure" : "";
      return `<li class="arbiter-check${outcome}">${escape(die.name ?? "")} ${escape(die.dice)}${modifier} = <strong>${escape(die.total)}</strong>${versus}${margin}</li>`;
    });
    const changes = (round.changes ?? []).map((/** @type {CardChange} */ change) =>
      `${escape(change.name)} ${typeof change.delta === "number" ? `${signed(change.delta)} ` : ""}(${escape(change.kind === "ds" ? "DS" : change.kind)} ${escape(change.to)})`);
    return `<div class="arbiter-round-card"><ul class="arbiter-checks">${checks.join("")}</ul>${changes.length ? `<p class="arbiter-change">→ ${changes.join(", ")}</p>` : ""}</div>`;
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
