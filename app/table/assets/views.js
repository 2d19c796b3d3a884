// How a session shows: its board (a track for races and chases, DS for arm wrestles, tokens
// and progress for skill games), its odds (a table of numbers and a chart drawn from them,
// the numbers written on the chart too) and its rounds with every die and where it came from.

import { fill, h, s } from "./dom.js";
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
  return frag.role !== "gm" && frag.name === name ? " (you)" : "";
}

export function renderBoard(box, kind, session, frag) {
  const state = session.state;
  const config = session.config;
  const parts = [];
  if (kind === "arm-wrestles") {
    const target = config.target;
    parts.push(h("p", { class: "board-note" }, `First to a DS of ${target} wins (${config.variant}).`));
    for (const name of KINDS[kind].names(session)) {
      const ds = state.ds[name];
      parts.push(bar(`${name}${youMark(frag, name)}`, ds, target, `DS ${ds} of ${target}${state.leader === name ? ", leads" : ""}`,
        { mine: frag.name === name, lead: state.leader === name }));
    }
  } else if (kind === "regular-contests") {
    for (const name of KINDS[kind].names(session)) {
      parts.push(h("p", { class: state.winner === name ? "lead" : "" }, `${name}${youMark(frag, name)}: effective skill ${state.effective_skills[name]}`));
    }
    parts.push(h("p", {}, `${state.rounds} of at most ${config.max_rounds} rounds played.`));
  } else if (kind === "races") {
    parts.push(h("p", { class: "board-note" }, `Increment ${state.increment} of ${state.of} done (${config.course}).`));
    parts.push(track(state.increment, state.of));
    const best = Math.max(1, ...Object.values(state.ds));
    for (const name of KINDS[kind].names(session)) {
      const standing = state.standing[name];
      const pacing = state.pacing ? state.pacing[name] : "normal";
      const extra = [standing !== "racing" ? standing : null, pacing === "sprint" ? "sprinting" : pacing === "pace" ? "pacing" : null,
        state.damage[name] ? `${state.damage[name]} damage` : null,
        ...(state.flags[name] || [])].filter(Boolean);
      parts.push(bar(`${name}${youMark(frag, name)}`, state.ds[name], best, `DS ${state.ds[name]}${extra.length ? ` (${extra.join(", ")})` : ""}`,
        { mine: frag.name === name, lead: state.ds[name] === best && best > 0 }));
    }
  } else if (kind === "chases") {
    const [escapee, chaser] = KINDS[kind].names(session);
    const lead = state.lead;
    const span = Math.max(40, lead + 10);
    const at = (value) => (Math.max(0, Math.min(span, value)) / span) * 300;
    parts.push(h("p", { class: "board-note" }, `${escapee} leads ${chaser} by ${lead}${state.status_detail ? ` (${state.status_detail})` : ""}.`));
    parts.push(h("figure", { class: "chase-track" },
      s("svg", { viewBox: "0 0 320 50", role: "img", "aria-label": `${chaser} at 0, ${escapee} at ${lead}` },
        s("line", { class: "track-line", x1: 10, y1: 30, x2: 310, y2: 30 }),
        s("circle", { class: "runner chaser", cx: 10 + at(0), cy: 30, r: 7 }),
        s("circle", { class: "runner escapee", cx: 10 + at(lead), cy: 30, r: 7 }),
        s("text", { x: 10 + at(0), y: 14, class: "runner-name", "text-anchor": "start" }, chaser),
        s("text", { x: 10 + at(lead), y: 48, class: "runner-name", "text-anchor": lead > span / 2 ? "end" : "start" }, `${escapee} (+${lead})`)),
      h("figcaption", {}, `Track: ${chaser} ${youMark(frag, chaser)}behind, ${escapee}${youMark(frag, escapee)} ${lead} ahead; DS ${escapee} ${state.ds[escapee]}, ${chaser} ${state.ds[chaser]}.`)));
  } else if (kind === "skill-games") {
    const goal = config.goal;
    parts.push(h("p", { class: "board-note" }, `Round ${state.round}${config.max_rounds ? ` of ${config.max_rounds}` : ""}: ${state.phase === "skills" ? "choosing skills" : "sealing choices"}. Goal: ${goal ?? "—"} progress; DC ${config.dc}.`));
    const rows = config.parties.map((party) => {
      const name = party.name;
      const step = state.phase === "skills"
        ? (state.skills_done.includes(name) ? "skills rolled" : "choosing skills")
        : (state.submitted.includes(name) ? "choice sealed" : "still choosing");
      return h("tr", { class: frag.name === name ? "mine" : "" },
        h("th", { scope: "row" }, `${name}${youMark(frag, name)}${party.controller === "gm" ? " (the GM's)" : ""}`),
        h("td", {}, `${state.progress[name]}${goal ? ` of ${goal}` : ""}`),
        h("td", {}, String(state.tokens[name])),
        h("td", {}, step));
    });
    parts.push(h("table", { class: "parties" },
      h("caption", {}, "Parties"),
      h("thead", {}, h("tr", {}, ["Party", "Progress", "Tokens", "Now"].map((title) => h("th", { scope: "col" }, title)))),
      h("tbody", {}, rows)));
    for (const party of config.parties) {
      parts.push(bar(`${party.name}`, state.progress[party.name], goal || 1, `progress ${state.progress[party.name]}`, { mine: frag.name === party.name }));
    }
    // A party's page shows its own members' skills; the GM's, every party's.
    const shown = config.parties.filter((party) => frag.role === "gm" || (frag.role === "party" && party.name === frag.name));
    for (const party of shown) {
      parts.push(h("h4", {}, frag.role === "gm" ? `${party.name}'s skills` : "Your party's skills"),
        h("ul", { class: "skills" }, party.members.map((member) =>
          h("li", {}, `${member.name}: ${Object.entries(member.skills).map(([skill, mod]) => `${skill} ${mod >= 0 ? "+" : ""}${mod}`).join(", ")}`))));
    }
  }
  if (session.pending) {
    parts.push(h("p", { class: "pending-line" }, `Round ${session.pending.number} waits for dice from ${session.pending.waiting_for.join(", ")}.`));
  }
  if (session.status !== "active") parts.push(h("p", { class: "result" }, `Finished: ${session.summary}`));
  fill(box, parts);
}

/** A course's increments as a row of cells, those done filled. */
function track(done, of) {
  const cells = Math.max(1, of);
  const width = 300 / cells;
  return s("svg", { class: "course", viewBox: "0 0 300 14", preserveAspectRatio: "none", role: "img", "aria-label": `${done} of ${of} increments done` },
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
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Outcome"), h("th", { scope: "col" }, "Chance"),
      errors ? h("th", { scope: "col" }, "± error") : null)),
    h("tbody", {}, rows.map(([label, p], index) => h("tr", {}, h("th", { scope: "row" }, label), h("td", { class: "num" }, percent(p)),
      errors ? h("td", { class: "num" }, errors[index] == null ? "—" : percent(errors[index])) : null))));
}

export function renderOdds(box, kind, session, odds) {
  const info = KINDS[kind];
  const rows = info.outcomes(session, odds).filter(([, p]) => p != null);
  const estimate = odds.method === "monte-carlo";
  const from = odds.rounds_played ?? odds.increments_played ?? session.round;
  const caption = `From round ${from}: ${estimate ? "estimated" : "exact"}`;
  const errors = estimate && odds.standard_error ? rows.map(() => null) : null;
  if (errors) {
    const table = odds.standard_error;
    const keys = Object.keys(table);
    rows.forEach(([label], index) => {
      const key = keys.find((name) => label.startsWith(name.split(".").pop()) || label.includes(name.split(".").pop()));
      errors[index] = key ? table[key] : null;
    });
  }
  fill(box,
    h("p", { class: "odds-summary" }, odds.summary),
    h("div", { class: "odds-pair" }, numbers(rows, caption, errors), h("figure", { class: "chart-box" }, chart(rows, "Odds from here"),
      h("figcaption", {}, "The same odds, drawn."))),
    info.facts(odds).map((fact) => h("p", { class: "muted" }, fact)));
}

export function renderChoiceOdds(box, kind, answer) {
  if (kind === "chases") {
    const rows = answer.options.map((option) => [option.label, option.odds.escaped]);
    fill(box, h("p", {}, answer.summary),
      h("div", { class: "odds-pair" }, numbers(rows, "The escapee gets away, by the next increment's tactic"),
        h("figure", { class: "chart-box" }, chart(rows, "Escapes, by tactic"), h("figcaption", {}, `Best: ${answer.best}.`))));
    return box;
  }
  const rows = answer.options.map((option) => {
    const party = Object.values(option.odds.parties)[0];
    return [option.label, party ? party.expected_tokens : 0];
  });
  const most = Math.max(1, ...rows.map(([, expected]) => expected));
  fill(box, h("p", {}, answer.summary),
    h("table", { class: "odds-table" }, h("caption", {}, "Tokens expected, by the skills chosen"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Skills"), h("th", { scope: "col" }, "Tokens expected"))),
      h("tbody", {}, rows.map(([label, expected]) => h("tr", { class: label === answer.best ? "best" : "" },
        h("th", { scope: "row" }, label), h("td", { class: "num" }, expected.toFixed(2)))))),
    h("figure", { class: "chart-box" }, chart(rows, "Tokens expected", { scale: most, format: (expected) => expected.toFixed(2) }),
      h("figcaption", {}, `Best: ${answer.best}.`)));
  return box;
}

// --- rounds ------------------------------------------------------------------------------

/** Who a seed or a supplied die is from (`gm`, `seat:<name>`, `party:<name>`), in words. */
export function byWords(by) {
  if (by === "gm") return "the GM";
  if (typeof by !== "string") return "—";
  const at = by.indexOf(":");
  const role = by.slice(0, at);
  const name = by.slice(at + 1);
  if (role === "seat") return `${name}'s seat`;
  if (role === "party") return `the party ${name}`;
  return by;
}

export function renderRound(kind, record) {
  const rolls = record.rolls || [];
  const parts = [h("p", { class: "round-summary" }, record.summary)];
  if (record.dice_from) {
    parts.push(h("p", { class: "muted" }, "Dice from: ",
      Object.entries(record.dice_from).map(([name, from]) => `${name} (${from === "seat" ? "their seat" : from === "gm" ? "the GM" : "the server, at the deadline"})`).join(", ")));
  }
  if (kind === "skill-games" && record.choices) {
    parts.push(h("ul", { class: "choices" }, Object.entries(record.choices).map(([party, choice]) =>
      h("li", {}, `${party}: ${choice.actions ? (choice.actions.length ? choice.actions.join(", ") : "nothing") : `${choice.action ?? "(its action is not shown to you)"}, bid ${choice.bid}`}`))));
  }
  // In a verifiable session each supplied die says who supplied it (`by`); "Check the dice"
  // recomputes every server die from the revealed seed (verify.js).
  if (rolls.length) {
    const anyBy = rolls.some((roll) => roll.by !== undefined);
    const titles = ["Who", "For", "Dice", "Rolled", "From", ...(anyBy ? ["By"] : [])];
    parts.push(h("div", { class: "dice-scroll" }, h("table", { class: "dice-table" },
      h("caption", {}, `Dice of round ${record.number}`),
      h("thead", {}, h("tr", {}, titles.map((title) => h("th", { scope: "col" }, title)))),
      h("tbody", {}, rolls.map((roll) => h("tr", {},
        h("td", {}, roll.who ?? "—"), h("td", {}, roll.purpose), h("td", {}, roll.dice),
        h("td", { class: "num" }, roll.values.join(", ")),
        h("td", {}, roll.source === "supplied" ? "entered" : "server"),
        anyBy ? h("td", {}, roll.source === "supplied" ? byWords(roll.by) : "—") : null))))));
  }
  return h("li", { class: "round", dataset: { number: String(record.number) } }, parts);
}
