// How a session shows: its board (a track for races and chases, DS for arm wrestles, tokens
// and progress for skill games), its odds (a table of numbers and a chart drawn from them,
// the numbers written on the chart too) and its rounds with every die and where it came from.

import { fill, h, refill, s } from "./dom.js";
import { possessive, t, tn } from "./i18n.js";
import { KINDS, percent } from "./kinds.js";

// --- the board ---------------------------------------------------------------------------

/** A horizontal bar: `value` of `max`, labelled, as an SVG whose numbers are text. */
function bar(label, value, max, text, { mine = false, lead = false } = {}) {
  const share = max > 0 ? Math.max(0, Math.min(1, value / max)) : 0;
  const width = 300;
  return h("div", { class: `bar-row${mine ? " mine" : ""}${lead ? " lead" : ""}` },
    h("span", { class: "bar-label" }, label),
    s("svg", { class: "bar", viewBox: `0 0 ${width} 16`, preserveAspectRatio: "none", "aria-hidden": "true", focusable: "false" },
      s("rect", { class: "bar-track", x: 0, y: 2, width, height: 12, rx: 3 }),
      s("rect", { class: "bar-fill", x: 0, y: 2, width: (share * width).toFixed(1), height: 12, rx: 3 })),
    h("span", { class: "bar-value" }, text));
}

function youMark(frag, name) {
  return frag.role !== "gm" && frag.name === name ? t(" (you)") : "";
}

export function renderBoard(box, kind, session, frag) {
  const state = session.state;
  const config = session.config;
  const parts = [];
  if (kind === "arm-wrestles") {
    const target = config.target;
    parts.push(h("p", { class: "board-note" }, t("First to a DS of {target} wins ({variant}).", { target, variant: config.variant })));
    // A DS below 0 (a leader pushed back) still shows: the bars start at the lowest DS.
    const names = KINDS[kind].names(session);
    const floor = Math.min(0, ...names.map((name) => state.ds[name]));
    for (const name of names) {
      const ds = state.ds[name];
      parts.push(bar(`${name}${youMark(frag, name)}`, ds - floor, target - floor,
        `${t("DS {ds} of {target}", { ds, target })}${state.leader === name ? t(", leads") : ""}`,
        { mine: frag.name === name, lead: state.leader === name }));
    }
  } else if (kind === "regular-contests") {
    for (const name of KINDS[kind].names(session)) {
      parts.push(h("p", { class: state.winner === name ? "lead" : "" }, t("{name}: effective skill {skill}", { name: `${name}${youMark(frag, name)}`, skill: state.effective_skills[name] })));
    }
    parts.push(h("p", {}, t("{rounds} of at most {most} rounds played.", { rounds: state.rounds, most: config.max_rounds })));
  } else if (kind === "races") {
    parts.push(h("p", { class: "board-note" }, t("Increment {done} of {of} done ({course}).", { done: state.increment, of: state.of, course: config.course })));
    parts.push(track(state.increment, state.of));
    const best = Math.max(1, ...Object.values(state.ds));
    for (const name of KINDS[kind].names(session)) {
      const standing = state.standing[name];
      const pacing = state.pacing ? state.pacing[name] : "normal";
      const extra = [standing !== "racing" ? standing : null, pacing === "sprint" ? t("sprinting") : pacing === "pace" ? t("pacing") : null,
        state.damage[name] ? t("{damage} damage", { damage: state.damage[name] }) : null,
        ...(state.flags[name] || [])].filter(Boolean);
      parts.push(bar(`${name}${youMark(frag, name)}`, state.ds[name], best, extra.length ? t("DS {ds} ({notes})", { ds: state.ds[name], notes: extra.join(", ") }) : t("DS {ds}", { ds: state.ds[name] }),
        { mine: frag.name === name, lead: state.ds[name] === best && best > 0 }));
    }
  } else if (kind === "chases") {
    const [escapee, chaser] = KINDS[kind].names(session);
    const lead = state.lead;
    const span = Math.max(40, lead + 10);
    const at = (value) => (Math.max(0, Math.min(span, value)) / span) * 300;
    parts.push(h("p", { class: "board-note" }, state.status_detail
      ? t("{escapee} leads {chaser} by {lead} ({detail}).", { escapee, chaser, lead, detail: state.status_detail })
      : t("{escapee} leads {chaser} by {lead}.", { escapee, chaser, lead })));
    parts.push(h("figure", { class: "chase-track" },
      s("svg", { viewBox: "0 0 320 50", role: "img", "aria-label": t("{chaser} at 0, {escapee} at {lead}", { chaser, escapee, lead }) },
        s("line", { class: "track-line", x1: 10, y1: 30, x2: 310, y2: 30 }),
        s("circle", { class: "runner chaser", cx: 10 + at(0), cy: 30, r: 7 }),
        s("circle", { class: "runner escapee", cx: 10 + at(lead), cy: 30, r: 7 }),
        s("text", { x: 10 + at(0), y: 14, class: "runner-name", "text-anchor": "start" }, chaser),
        s("text", { x: 10 + at(lead), y: 48, class: "runner-name", "text-anchor": lead > span / 2 ? "end" : "start" }, `${escapee} (+${lead})`)),
      h("figcaption", {}, t("Track: {behind} behind, {ahead} {lead} ahead; DS {escapee} {escapee_ds}, {chaser} {chaser_ds}.", {
        behind: `${chaser}${youMark(frag, chaser)}`, ahead: `${escapee}${youMark(frag, escapee)}`, lead,
        escapee, escapee_ds: state.ds[escapee], chaser, chaser_ds: state.ds[chaser],
      }))));
  } else if (kind === "skill-games") {
    const goal = config.goal;
    const note = session.status !== "active"
      ? t("The game is over. Goal: {goal} progress; DC {dc}.", { goal: goal ?? "—", dc: config.dc })
      : `${config.max_rounds ? t("Round {round} of {most}", { round: state.round, most: config.max_rounds }) : t("Round {round}", { round: state.round })}: ${state.phase === "skills" ? t("choosing skills") : t("sealing choices")}. ${t("Goal: {goal} progress; DC {dc}.", { goal: goal ?? "—", dc: config.dc })}`;
    parts.push(h("p", { class: "board-note" }, note));
    const rows = config.parties.map((party) => {
      const name = party.name;
      const step = session.status !== "active" ? t("done")
        : state.phase === "skills"
          ? (state.skills_done.includes(name) ? t("skills rolled") : t("choosing skills"))
          : (state.submitted.includes(name) ? t("choice sealed") : t("still choosing"));
      return h("tr", { class: frag.name === name ? "mine" : "" },
        h("th", { scope: "row" }, `${name}${youMark(frag, name)}${party.controller === "gm" ? t(" (the GM's)") : ""}`),
        h("td", {}, goal ? t("{progress} of {goal}", { progress: state.progress[name], goal }) : String(state.progress[name])),
        h("td", {}, String(state.tokens[name])),
        h("td", {}, step));
    });
    parts.push(h("table", { class: "parties" },
      h("caption", {}, t("Parties")),
      h("thead", {}, h("tr", {}, [t("Party"), t("Progress"), t("Tokens"), t("Now")].map((title) => h("th", { scope: "col" }, title)))),
      h("tbody", {}, rows)));
    for (const party of config.parties) {
      parts.push(bar(`${party.name}`, state.progress[party.name], goal || 1, t("progress {progress}", { progress: state.progress[party.name] }), { mine: frag.name === party.name }));
    }
    // A party's page shows its own members' skills; the GM's, every party's.
    const shown = config.parties.filter((party) => frag.role === "gm" || (frag.role === "party" && party.name === frag.name));
    for (const party of shown) {
      parts.push(h("h4", {}, frag.role === "gm" ? t("{whose} skills", { whose: possessive(party.name) }) : t("Your party's skills")),
        h("ul", { class: "skills" }, party.members.map((member) =>
          h("li", {}, `${member.name}: ${Object.entries(member.skills).map(([skill, mod]) => `${skill} ${mod >= 0 ? "+" : ""}${mod}`).join(", ")}`))));
    }
  }
  if (session.pending) {
    parts.push(h("p", { class: "pending-line" }, t("Round {number} waits for dice from {names}.", { number: session.pending.number, names: session.pending.waiting_for.join(", ") })));
  }
  if (session.status !== "active") parts.push(h("p", { class: "result" }, t("Finished: {summary}", { summary: session.summary })));
  refill(box, parts);
}

/** A course's increments as a row of cells, those done filled. */
function track(done, of) {
  const cells = Math.max(1, of);
  const width = 300 / cells;
  return s("svg", { class: "course", viewBox: "0 0 300 14", preserveAspectRatio: "none", role: "img", "aria-label": t("{done} of {of} increments done", { done, of }) },
    Array.from({ length: cells }, (_, index) =>
      s("rect", { class: index < done ? "cell done" : "cell", x: (index * width + 1).toFixed(1), y: 1, width: Math.max(1, width - 2).toFixed(1), height: 12, rx: 2 })));
}

// --- odds --------------------------------------------------------------------------------

/** A bar chart of `rows` (`[label, probability]`), its numbers written on it. */
function chart(rows, title, { scale = 1, format = percent } = {}) {
  // Each bar under its label, so that the chart reads at a phone's width as at a desk's.
  const rowHeight = 38;
  const width = 300;
  const barWidth = 236;
  const height = rows.length * rowHeight + 4;
  const described = rows.map(([label, p]) => `${label} ${format(p)}`).join("; ");
  return s("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `${title}: ${described}` },
    s("title", {}, `${title}: ${described}`),
    rows.map(([label, p], index) => {
      const y = index * rowHeight + 2;
      return s("g", {},
        s("text", { x: 0, y: y + 12, class: "chart-label" }, label.length > 44 ? `${label.slice(0, 43)}…` : label),
        s("rect", { class: "chart-track", x: 0, y: y + 17, width: barWidth, height: 14, rx: 2 }),
        s("rect", { class: "chart-bar", x: 0, y: y + 17, width: (Math.min(1, (p || 0) / scale) * barWidth).toFixed(1), height: 14, rx: 2 }),
        s("text", { x: barWidth + 6, y: y + 29, class: "chart-value" }, format(p)));
    }));
}

function numbers(rows, caption, errors = null) {
  return h("table", { class: "odds-table" },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Outcome")), h("th", { scope: "col" }, t("Chance")),
      errors ? h("th", { scope: "col" }, t("± error")) : null)),
    h("tbody", {}, rows.map(([label, p], index) => h("tr", {}, h("th", { scope: "row" }, label), h("td", { class: "num" }, percent(p)),
      errors ? h("td", { class: "num" }, errors[index] == null ? "—" : percent(errors[index])) : null))));
}

export function renderOdds(box, kind, session, odds) {
  const info = KINDS[kind];
  const rows = info.outcomes(session, odds).filter(([, p]) => p != null);
  const estimate = odds.method === "monte-carlo";
  const from = odds.rounds_played ?? odds.increments_played ?? session.round;
  const caption = estimate ? t("From round {round}: estimated", { round: from }) : t("From round {round}: exact", { round: from });
  const errors = estimate && odds.standard_error ? rows.map(() => null) : null;
  if (errors) {
    const table = odds.standard_error;
    const keys = Object.keys(table);
    rows.forEach(([label], index) => {
      const key = keys.find((name) => label.startsWith(name.split(".").pop()) || label.includes(name.split(".").pop()));
      errors[index] = key ? table[key] : null;
    });
  }
  // Once it is over the odds are its result: no expectation of rounds to come, no estimate.
  const over = session.status !== "active";
  fill(box,
    h("p", { class: "odds-summary" }, over ? t("It is over: {summary}", { summary: session.summary }) : odds.summary),
    h("div", { class: "odds-pair" }, numbers(rows, caption, errors), h("figure", { class: "chart-box" }, chart(rows, t("Odds from here")),
      h("figcaption", {}, t("The same odds, drawn.")))),
    over ? null : info.facts(odds).map((fact) => h("p", { class: "muted" }, fact)));
}

export function renderChoiceOdds(box, kind, answer) {
  if (kind === "chases") {
    const rows = answer.options.map((option) => [option.label, option.odds.escaped]);
    fill(box, h("p", {}, answer.summary),
      h("div", { class: "odds-pair" }, numbers(rows, t("The escapee gets away, by the next increment's tactic")),
        h("figure", { class: "chart-box" }, chart(rows, t("Escapes, by tactic")), h("figcaption", {}, t("Best: {best}.", { best: answer.best })))));
    return box;
  }
  const rows = answer.options.map((option) => {
    const party = Object.values(option.odds.parties)[0];
    return [option.label, party ? party.expected_tokens : 0];
  });
  const most = Math.max(1, ...rows.map(([, expected]) => expected));
  fill(box, h("p", {}, answer.summary),
    h("table", { class: "odds-table" }, h("caption", {}, t("Tokens expected, by the skills chosen")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Skills")), h("th", { scope: "col" }, t("Tokens expected")))),
      h("tbody", {}, rows.map(([label, expected]) => h("tr", { class: label === answer.best ? "best" : "" },
        h("th", { scope: "row" }, label), h("td", { class: "num" }, expected.toFixed(2)))))),
    h("figure", { class: "chart-box" }, chart(rows, t("Tokens expected"), { scale: most, format: (expected) => expected.toFixed(2) }),
      h("figcaption", {}, t("Best: {best}.", { best: answer.best }))));
  return box;
}

// --- rounds ------------------------------------------------------------------------------

/** Who a seed or a supplied die is from (`gm`, `seat:<name>`, `party:<name>`), in words. */
export function byWords(by) {
  if (by === "gm") return t("the GM");
  if (typeof by !== "string") return "—";
  const at = by.indexOf(":");
  const role = by.slice(0, at);
  const name = by.slice(at + 1);
  if (role === "seat") return t("{whose} seat", { whose: possessive(name) });
  if (role === "party") return t("the party {name}", { name });
  return by;
}

// A card's words are the service's (docs/api.md#round-cards): its line (`text`), each die's
// line and note, each change's words, in the language the page asked the API in. The page
// shows them as they are, as the Discord markdown and the Foundry module do: one card,
// worded once.

/** A card's one line: its checks, then what it changed. */
export function cardLine(card) {
  return card.text;
}

/** The card itself: a line per die (its dice, then its margin, result and who gave it), then
 * the changes. */
function cardBody(card) {
  return h("div", { class: "card" },
    h("ul", { class: "card-dice" }, card.dice.map((die) =>
      h("li", { class: die.success === true ? "made" : die.success === false ? "missed" : "" },
        h("span", { class: "card-check" }, die.text),
        die.values.length && die.total !== null && die.total !== undefined ? h("span", { class: "card-values" }, ` [${die.values.join(", ")}]`) : null,
        die.note ? h("span", { class: "card-note" }, ` · ${die.note}`) : null))),
    card.changes.length ? h("p", { class: "card-change" }, "→ ", card.changes.map((change) =>
      h("span", { class: `card-${change.kind}`, dataset: { kind: change.kind, delta: change.delta === null ? "" : String(change.delta) } }, change.text))
      .flatMap((item, index) => (index ? [", ", item] : [item]))) : null);
}

export function renderRound(kind, record, { latest = false } = {}) {
  const rolls = record.rolls || [];
  const card = Array.isArray(record.cards) ? record.cards[0] : null;
  const title = t("Round {number}", { number: record.number });
  const headingId = `round-${record.number}-title`;
  const head = h("p", { class: "card-title" }, h("strong", { id: headingId }, title),
    card ? h("span", { class: "card-line" }, `: ${cardLine(card)}`) : null);
  const more = [h("p", { class: "round-summary" }, record.summary)];
  if (record.dice_from) {
    const words = { seat: t("their seat"), gm: t("the GM"), deadline: t("the server, at the deadline"), "roll-for-me": t("the server, as they asked") };
    more.push(h("p", { class: "muted" }, t("Dice from: {list}", {
      list: Object.entries(record.dice_from).map(([name, from]) => `${name} (${words[from] ?? from})`).join(", "),
    })));
  }
  if (kind === "skill-games" && record.choices) {
    const hidden = t("(its action is not shown to you)");
    more.push(h("ul", { class: "choices" }, Object.entries(record.choices).map(([party, choice]) =>
      h("li", {}, choice.actions
        ? t("{party}: {actions}", { party, actions: choice.actions.length ? choice.actions.join(", ") : t("nothing") })
        : t("{party}: {action}, bid {bid}", { party, action: choice.action ?? hidden, bid: choice.bid })))));
  }
  // In a verifiable session each supplied die says who supplied it (`by`); "Check the dice"
  // recomputes every server die from the revealed seed (verify.js).
  if (rolls.length) {
    const anyBy = rolls.some((roll) => roll.by !== undefined);
    const titles = [t("Who"), t("For"), t("Dice"), t("Rolled"), t("From"), ...(anyBy ? [t("By")] : [])];
    more.push(h("div", { class: "dice-scroll" }, h("table", { class: "dice-table" },
      h("caption", {}, t("Dice of round {number}", { number: record.number })),
      h("thead", {}, h("tr", {}, titles.map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, rolls.map((roll) => h("tr", {},
        h("td", {}, roll.who ?? "—"), h("td", {}, roll.purpose), h("td", {}, roll.dice),
        h("td", { class: "num" }, roll.values.join(", ")),
        h("td", {}, roll.source === "supplied" ? t("entered") : t("server")),
        anyBy ? h("td", {}, roll.source === "supplied" ? byWords(roll.by) : "—") : null))))));
  }
  return h("li", { class: latest ? "round latest" : "round", dataset: { number: String(record.number) }, "aria-labelledby": headingId },
    head,
    card ? cardBody(card) : null,
    h("details", { class: "round-more" }, h("summary", {}, t("The summary line and every die")), more));
}
