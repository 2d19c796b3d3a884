// The forms of the long-running kinds: what the GM's dialog shows to start each one (filled in
// from the selected tokens) and to play a chase's increment or a skill game's turn, and the
// request bodies Arbiter takes from those forms (docs/api.md). Pure: no Foundry global is read;
// every label is the caller's translation of a key of lang/*.json.

import { escape } from "./cards.js";

/**
 * @typedef {(key: string, data?: Record<string, unknown>) => string} Translate
 * @typedef {{name: string, owner: string}} Competitor a selected token: its name, the player owning it
 * @typedef {{id: string, name: string}} Player
 * @typedef {{name: string, holder: string}} Holder who holds a seat's or a party's token ("": the GM)
 * @typedef {{body: Record<string, any>, names: string[], seats: Holder[], parties: Holder[]}} Start
 * @typedef {{purpose: string, certain: number, most: number | null, when: string | null}} Owed
 *   what a seat owes the waiting round, for one purpose (docs/api.md)
 * @typedef {{name: string, members: {name: string}[]}} PartyConfig
 */

/** A race's courses, as Arbiter names them. */
export const COURSES = ["dash", "typical", "marathon", "dakrothian-marathon"];
/** A racer's pacing, as Arbiter names it. */
export const PACINGS = ["normal", "sprint", "pace"];
/** The checks a chase's terrain may ask for. */
export const TERRAINS = ["strength", "dexterity", "constitution", "swim", "climb", "jump"];

/**
 * The sides of each purpose's die where it is not a d20 (docs/rules.md): a regular contest's
 * success is 3d6, the spiked arm wrestle's damage a d4. A purpose whose dice are a notation
 * (a damage roll of the session's own) owes no bounded count, and is left to Arbiter.
 * @type {Record<string, Record<string, number>>}
 */
export const SIDES = { "regular-contests": { success: 6 }, "arm-wrestles": { damage: 4 } };

/**
 * The dice a seat rolls itself for the waiting round: per purpose it owes, its sure dice, or
 * for a conditional die the most it may take (sent with the sure ones, used if the round needs
 * them); a purpose with no bound is left to Arbiter.
 * @param {string} kind the session's kind, as in its URL
 * @param {Owed[]} owed
 * @returns {{purpose: string, count: number, sides: number}[]}
 */
export function owedRolls(kind, owed) {
  return owed
    .map((entry) => ({
      purpose: entry.purpose,
      count: entry.certain > 0 ? entry.certain : entry.most ?? 0,
      sides: SIDES[kind]?.[entry.purpose] ?? 20,
    }))
    .filter((entry) => entry.count > 0);
}

/**
 * @param {string} label
 * @param {string} name
 * @param {string | number} value
 * @param {string} [type]
 */
function input(label, name, value, type = "text") {
  return `<label>${escape(label)} <input name="${escape(name)}" type="${type}" value="${escape(value)}"></label>`;
}

/**
 * @param {string} label
 * @param {string} name
 * @param {[string, string][]} options value, label
 * @param {string} [chosen]
 */
function select(label, name, options, chosen) {
  const shown = options
    .map(([value, text]) => `<option value="${escape(value)}"${value === chosen ? " selected" : ""}>${escape(text)}</option>`)
    .join("");
  return `<label>${escape(label)} <select name="${escape(name)}">${shown}</select></label>`;
}

/**
 * Who holds a seat's or a party's token: a player, or the GM ("").
 * @param {Translate} t
 * @param {string} name
 * @param {Player[]} players
 * @param {string} [owner]
 * @param {string} [label]
 */
function holder(t, name, players, owner, label = "ARBITER.Form.Seat") {
  const options = /** @type {[string, string][]} */ ([["", t("ARBITER.Form.GM")]]).concat(players.map((user) => [user.id, user.name]));
  return select(t(label), name, options, owner ?? "");
}

/**
 * @param {string} legend
 * @param {string[]} parts
 */
function fieldset(legend, parts) {
  return `<fieldset><legend>${escape(legend)}</legend>${parts.join("")}</fieldset>`;
}

/**
 * The start dialog's fields (without the <form>, which the dialog makes).
 * @param {string} kind a key of KINDS
 * @param {Translate} t
 * @param {Competitor[]} competitors
 * @param {Player[]} players
 */
export function startForm(kind, t, competitors, players) {
  const name = (/** @type {string} */ field, /** @type {Competitor | undefined} */ who) => input(t("ARBITER.Form.Name"), field, who?.name ?? "");
  switch (kind) {
    case "arm-wrestle":
    case "regular": {
      const numbers =
        kind === "arm-wrestle"
          ? [["strength_mod", "ARBITER.Form.StrengthMod", 0], ["con_score", "ARBITER.Form.ConScore", 10], ["con_mod", "ARBITER.Form.ConMod", 0]]
          : [["skill", "ARBITER.Form.Skill", 10]];
      const side = (/** @type {string} */ key, /** @type {Competitor | undefined} */ who) =>
        fieldset(key.toUpperCase(), [
          name(`${key}.name`, who),
          ...numbers.map(([field, label, value]) => input(t(String(label)), `${key}.${field}`, value, "number")),
          holder(t, `${key}.seat`, players, who?.owner),
        ]);
      const target = kind === "arm-wrestle" ? input(t("ARBITER.Form.Target"), "target", 20, "number") : "";
      return `<div class="arbiter-start">${side("a", competitors[0])}${side("b", competitors[1])}${target}</div>`;
    }
    case "race": {
      const rows = Math.max(2, competitors.length);
      const racers = Array.from({ length: rows }, (_, index) =>
        fieldset(t("ARBITER.Form.Racer", { number: index + 1 }), [
          name(`r${index}.name`, competitors[index]),
          input(t("ARBITER.Form.Speed"), `r${index}.speed`, 30, "number"),
          input(t("ARBITER.Form.ConScore"), `r${index}.con_score`, 10, "number"),
          holder(t, `r${index}.seat`, players, competitors[index]?.owner),
        ]),
      );
      const courses = COURSES.map((course) => /** @type {[string, string]} */ ([course, t(`ARBITER.Course.${course}`)]));
      return `<div class="arbiter-start">${select(t("ARBITER.Form.Course"), "course", courses, "dash")}${racers.join("")}</div>`;
    }
    case "chase": {
      const side = (/** @type {string} */ key, /** @type {string} */ legend, /** @type {Competitor | undefined} */ who) =>
        fieldset(t(legend), [
          name(`${key}.name`, who),
          input(t("ARBITER.Form.Speed"), `${key}.speed`, 30, "number"),
          input(t("ARBITER.Form.ConScore"), `${key}.con_score`, 10, "number"),
          holder(t, `${key}.seat`, players, who?.owner),
        ]);
      return `<div class="arbiter-start">${side("e", "ARBITER.Form.Escapee", competitors[0])}${side("c", "ARBITER.Form.Chaser", competitors[1])}${input(
        t("ARBITER.Form.Lead"),
        "lead",
        10,
        "number",
      )}</div>`;
    }
    default: {
      // A skill game: the game, its two parties (each party's token to a player, or the GM's),
      // and each selected token a member of one party with its skills.
      const kinds = /** @type {[string, string][]} */ ([["bidding", t("ARBITER.Form.Bidding")], ["option", t("ARBITER.Form.Option")]]);
      const game = [
        input(t("ARBITER.Form.DC"), "dc", 15, "number"),
        select(t("ARBITER.Form.GameKind"), "kind", kinds, "bidding"),
        input(t("ARBITER.Form.SkillList"), "skill_list", "Persuade, Insight, Intimidate"),
        input(t("ARBITER.Form.SkillsPerRound"), "skills_per_round", 2, "number"),
        input(t("ARBITER.Form.Goal"), "goal", 5, "number"),
        input(t("ARBITER.Form.MaxRounds"), "max_rounds", 10, "number"),
        `<label>${escape(t("ARBITER.Form.Actions"))} <textarea name="actions">${escape(
          "Press | Ground gained. | 1 | 0 | 1\nRally | Second wind. | 0 | 1 | 0",
        )}</textarea></label>`,
        `<p class="hint">${escape(t("ARBITER.Form.ActionsHint"))}</p>`,
      ];
      const owned = competitors.find((who) => who.owner)?.owner ?? "";
      const parties = [
        fieldset(t("ARBITER.Form.Party", { number: 1 }), [input(t("ARBITER.Form.Name"), "p1.name", "Heroes"), holder(t, "p1.holder", players, owned, "ARBITER.Form.PartyHolder")]),
        fieldset(t("ARBITER.Form.Party", { number: 2 }), [input(t("ARBITER.Form.Name"), "p2.name", "Villains"), holder(t, "p2.holder", players, "", "ARBITER.Form.PartyHolder")]),
      ];
      const members = (competitors.length ? competitors : [undefined, undefined]).map((who, index) =>
        fieldset(t("ARBITER.Form.Member", { number: index + 1 }), [
          name(`m${index}.name`, who),
          select(t("ARBITER.Form.MemberParty"), `m${index}.party`, [["p1", "1"], ["p2", "2"]], who?.owner || index === 0 ? "p1" : "p2"),
          input(t("ARBITER.Form.MemberSkills"), `m${index}.skills`, "Persuade +2"),
        ]),
      );
      return `<div class="arbiter-start">${game.join("")}${parties.join("")}${members.join("")}</div>`;
    }
  }
}

/**
 * The creation body the start dialog's form makes, and who holds which seat or party.
 * @param {string} kind a key of KINDS
 * @param {Record<string, string>} form
 * @returns {Start}
 */
export function startBody(kind, form) {
  const text = (/** @type {string} */ field) => (form[field] ?? "").trim();
  const number = (/** @type {string} */ field) => Number(form[field]);
  switch (kind) {
    case "arm-wrestle":
    case "regular": {
      const numbers = kind === "arm-wrestle" ? ["strength_mod", "con_score", "con_mod"] : ["skill"];
      const side = (/** @type {string} */ key) => Object.fromEntries([["name", text(`${key}.name`)], ...numbers.map((field) => [field, number(`${key}.${field}`)])]);
      /** @type {Record<string, any>} */
      const body = { a: side("a"), b: side("b"), seats: true };
      if (kind === "arm-wrestle" && form.target) body.target = number("target");
      return {
        body,
        names: [body.a.name, body.b.name],
        seats: ["a", "b"].map((key) => ({ name: text(`${key}.name`), holder: text(`${key}.seat`) })),
        parties: [],
      };
    }
    case "race": {
      const rows = Object.keys(form).filter((field) => /^r\d+\.name$/.test(field) && text(field));
      const keys = rows.map((field) => field.slice(0, -".name".length));
      const competitors = keys.map((key) => ({ name: text(`${key}.name`), speed: number(`${key}.speed`), con_score: number(`${key}.con_score`) }));
      return {
        body: { course: text("course") || "dash", competitors, seats: true },
        names: competitors.map((racer) => racer.name),
        seats: keys.map((key) => ({ name: text(`${key}.name`), holder: text(`${key}.seat`) })),
        parties: [],
      };
    }
    case "chase": {
      const side = (/** @type {string} */ key) => ({ name: text(`${key}.name`), speed: number(`${key}.speed`), con_score: number(`${key}.con_score`) });
      return {
        body: { escapee: side("e"), chaser: side("c"), start: { mode: "lead", lead: number("lead") }, seats: true },
        names: [text("e.name"), text("c.name")],
        seats: ["e", "c"].map((key) => ({ name: text(`${key}.name`), holder: text(`${key}.seat`) })),
        parties: [],
      };
    }
    default: {
      const keys = Object.keys(form)
        .filter((field) => /^m\d+\.name$/.test(field) && text(field))
        .map((field) => field.slice(0, -".name".length));
      const parties = ["p1", "p2"].map((party) => ({
        name: text(`${party}.name`),
        controller: text(`${party}.holder`) ? "players" : "gm",
        members: keys.filter((key) => text(`${key}.party`) === party).map((key) => ({ name: text(`${key}.name`), skills: modifiers(text(`${key}.skills`)) })),
      }));
      const body = {
        dc: number("dc"),
        skill_list: list(text("skill_list")),
        skills_per_round: number("skills_per_round"),
        kind: text("kind") || "bidding",
        actions: actions(form.actions ?? "", text("kind") || "bidding"),
        goal: number("goal"),
        max_rounds: number("max_rounds"),
        parties,
      };
      return {
        body,
        names: parties.map((party) => party.name),
        seats: [],
        parties: ["p1", "p2"].map((party) => ({ name: text(`${party}.name`), holder: text(`${party}.holder`) })),
      };
    }
  }
}

/** @param {string} typed "Persuade, Insight" */
export function list(typed) {
  return typed
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
}

/**
 * A member's skills as typed: "Persuade +3, Insight 1".
 * @param {string} typed
 * @returns {Record<string, number>}
 */
export function modifiers(typed) {
  /** @type {Record<string, number>} */
  const found = {};
  for (const part of list(typed)) {
    const match = /^(.*?)\s*([+-]?\d+)?$/.exec(part);
    if (match && match[1]) found[match[1]] = Number(match[2] ?? 0);
  }
  return found;
}

/**
 * A skill game's actions, one a line: "name | effect | progress | tokens | cost" (the last
 * three numbers optional, 0 when left out; a cost is an option game's alone).
 * @param {string} typed
 * @param {string} kind "bidding" or "option"
 */
export function actions(typed, kind) {
  return typed
    .split(/\r?\n/)
    .map((line) => line.split("|").map((part) => part.trim()))
    .filter((parts) => parts[0])
    .map(([name, text, progress, tokens, cost]) => {
      /** @type {Record<string, unknown>} */
      const effect = { text: text || name };
      if (Number(progress)) effect.progress = Number(progress);
      if (Number(tokens)) effect.tokens = Number(tokens);
      return kind === "option" ? { name, cost: Number(cost) || 0, effects: [effect] } : { name, effects: [effect] };
    });
}

/**
 * A chase's increment: its terrain (the check, an optional DC, an obstacle or hazard before the
 * check, and a mounted increment where both sides have a mount) and the escapee's tactic.
 * @param {Translate} t
 * @param {{mounted?: boolean}} [allowed] whether this chase may play a mounted increment
 */
export function chaseForm(t, allowed = {}) {
  const terrains = TERRAINS.map((check) => /** @type {[string, string]} */ ([check, t(`ARBITER.Check.${check}`)]));
  const tactics = /** @type {[string, string][]} */ ([
    ["", t("ARBITER.Tactic.None")],
    ["hide", t("ARBITER.Tactic.Hide")],
    ["hazard", t("ARBITER.Tactic.Hazard")],
  ]);
  // What may stand before the check: nothing, an obstacle (passed, or no gain), a hazard.
  const obstacles = /** @type {[string, string][]} */ ([
    ["", t("ARBITER.Obstacle.None")],
    ["obstacle", t("ARBITER.Obstacle.Obstacle")],
    ["hazard", t("ARBITER.Obstacle.Hazard")],
  ]);
  const yesNo = /** @type {[string, string][]} */ ([["", t("ARBITER.Form.No")], ["yes", t("ARBITER.Form.Yes")]]);
  const parts = [
    select(t("ARBITER.Form.Terrain"), "terrain", terrains, "strength"),
    input(t("ARBITER.Form.TerrainDC"), "dc", "", "number"),
    fieldset(t("ARBITER.Form.Obstacle"), [
      select(t("ARBITER.Form.ObstacleKind"), "obstacle", obstacles, ""),
      select(t("ARBITER.Form.ObstacleCheck"), "obstacle_check", terrains, "dexterity"),
      input(t("ARBITER.Form.ObstacleDC"), "obstacle_dc", 10, "number"),
    ]),
    allowed.mounted ? select(t("ARBITER.Form.Mounted"), "mounted", yesNo, "") : "",
    select(t("ARBITER.Form.Tactic"), "tactic", tactics, ""),
    input(t("ARBITER.Form.Penalty"), "penalty", 2, "number"),
  ];
  return `<div class="arbiter-chase">${parts.join("")}</div>`;
}

/**
 * The chase round's body from its dialog: fields left blank are left out.
 * @param {Record<string, string>} form
 */
export function chaseRound(form) {
  const text = (/** @type {string} */ field) => (form[field] ?? "").trim();
  const kind = text("tactic");
  const tactic = kind === "hazard" ? { kind, penalty: Number(form.penalty) } : kind === "hide" ? { kind } : null;
  /** @type {Record<string, unknown>} */
  const terrain = { check: text("terrain") || "strength" };
  if (text("dc")) terrain.dc = Number(text("dc"));
  const obstacle = text("obstacle");
  if (obstacle) terrain.obstacle = { kind: obstacle, check: text("obstacle_check") || "dexterity", dc: Number(text("obstacle_dc")) };
  if (text("mounted") === "yes") terrain.mounted = true;
  return { terrain, tactic };
}

/**
 * A party's skills for the round: one choice per skill it rolls, and for each member of the
 * parties this user plays a field per skill for the d20 they rolled themselves (left blank,
 * Arbiter rolls it).
 * @param {Translate} t
 * @param {string[]} parties those this user may choose for
 * @param {string[]} skills the game's skill list
 * @param {number} count skills per round
 * @param {PartyConfig[]} [roster] every party of the game, with its members
 */
export function skillsForm(t, parties, skills, count, roster = []) {
  const options = skills.map((skill) => /** @type {[string, string]} */ ([skill, skill]));
  const fields = Array.from({ length: count }, (_, index) =>
    select(t("ARBITER.Form.SkillNumber", { number: index + 1 }), `skill${index + 1}`, options, skills[index]),
  );
  const dice = roster.flatMap((party, partyIndex) =>
    parties.includes(party.name)
      ? [
          fieldset(
            t("ARBITER.Form.PartyDice", { party: party.name }),
            party.members.flatMap((member, memberIndex) =>
              Array.from({ length: count }, (_, index) =>
                input(t("ARBITER.Form.MemberDie", { member: member.name, number: index + 1 }), `die.${partyIndex}.${memberIndex}.${index + 1}`, "", "number"),
              ),
            ),
          ),
        ]
      : [],
  );
  const hint = dice.length ? `<p class="hint">${escape(t("ARBITER.Form.DiceHint"))}</p>` : "";
  return `<div class="arbiter-skills">${partyField(t, parties)}${fields.join("")}${hint}${dice.join("")}</div>`;
}

/**
 * @param {Translate} t
 * @param {string[]} parties
 */
function partyField(t, parties) {
  return select(
    t("ARBITER.Form.ForParty"),
    "party",
    parties.map((party) => [party, party]),
    parties[0],
  );
}

/**
 * The skills a party chooses, with the d20s its members rolled themselves (those typed in the
 * dialog for the chosen party: `rolls`, by member and skill).
 * @param {Record<string, string>} form
 * @param {PartyConfig[]} [roster]
 */
export function skillsBody(form, roster = []) {
  const slots = Object.keys(form)
    .filter((field) => /^skill\d+$/.test(field))
    .sort();
  const skills = [...new Set(slots.map((field) => form[field].trim()).filter(Boolean))];
  const party = (form.party ?? "").trim();
  /** @type {Record<string, Record<string, number>>} */
  const rolls = {};
  const partyIndex = roster.findIndex((one) => one.name === party);
  for (const [field, typed] of Object.entries(form)) {
    const match = /^die\.(\d+)\.(\d+)\.(\d+)$/.exec(field);
    if (!match || Number(match[1]) !== partyIndex || !typed.trim()) continue;
    const member = roster[partyIndex].members[Number(match[2])]?.name;
    const skill = (form[`skill${match[3]}`] ?? "").trim();
    if (!member || !skill) continue;
    rolls[member] = { ...rolls[member], [skill]: Number(typed) };
  }
  /** @type {{party: string, skills: string[], rolls?: Record<string, Record<string, number>>}} */
  const body = { party, skills };
  if (Object.keys(rolls).length) body.rolls = rolls;
  return body;
}

/**
 * The GM's grant of tokens to a skill-game party, and its reason.
 * @param {Translate} t
 * @param {string[]} parties
 */
export function grantForm(t, parties) {
  const options = parties.map((party) => /** @type {[string, string]} */ ([party, party]));
  return `<div class="arbiter-grant">${select(t("ARBITER.Form.GrantParty"), "party", options, parties[0])}${input(
    t("ARBITER.Form.GrantTokens"),
    "tokens",
    1,
    "number",
  )}${input(t("ARBITER.Form.Reason"), "reason", "")}</div>`;
}

/** @param {Record<string, string>} form */
export function grantBody(form) {
  return { party: (form.party ?? "").trim(), tokens: Number(form.tokens), reason: (form.reason ?? "").trim() };
}

/**
 * The GM ends a skill game: an optional reason.
 * @param {Translate} t
 */
export function endForm(t) {
  return `<div class="arbiter-end"><p class="hint">${escape(t("ARBITER.Form.EndHint"))}</p>${input(t("ARBITER.Form.Reason"), "reason", "")}</div>`;
}

/** @param {Record<string, string>} form */
export function endBody(form) {
  const reason = (form.reason ?? "").trim();
  return reason ? { reason } : {};
}

/**
 * A party's sealed choice: an action and its bid (bidding), or its actions (option).
 * @param {Translate} t
 * @param {string[]} parties
 * @param {{kind: string, actions: {name: string, cost?: number}[], max_actions_per_round?: number}} config
 */
export function choiceForm(t, parties, config) {
  const names = config.actions.map((action) => /** @type {[string, string]} */ ([action.name, action.name]));
  if (config.kind === "bidding") {
    return `<div class="arbiter-choice">${partyField(t, parties)}${select(t("ARBITER.Form.Action"), "action", names, names[0]?.[0])}${input(
      t("ARBITER.Form.Bid"),
      "bid",
      0,
      "number",
    )}</div>`;
  }
  const none = /** @type {[string, string][]} */ ([["", t("ARBITER.Form.NoAction")]]);
  const slots = Array.from({ length: config.max_actions_per_round ?? 1 }, (_, index) =>
    select(t("ARBITER.Form.ActionNumber", { number: index + 1 }), `action${index + 1}`, none.concat(names), index === 0 ? names[0]?.[0] : ""),
  );
  return `<div class="arbiter-choice">${partyField(t, parties)}${slots.join("")}</div>`;
}

/**
 * @param {string} kind "bidding" or "option"
 * @param {Record<string, string>} form
 */
export function choiceBody(kind, form) {
  const party = (form.party ?? "").trim();
  if (kind === "bidding") return { party, action: (form.action ?? "").trim(), bid: Number(form.bid) };
  const chosen = Object.keys(form)
    .filter((field) => /^action\d+$/.test(field))
    .sort()
    .map((field) => form[field].trim())
    .filter(Boolean);
  return { party, actions: chosen };
}

/**
 * A revealed bidding round as every reader may see it (docs/api.md#skill-games): every bid,
 * and the action of each party that took it; another party's losing action is its own and the
 * GM's alone, so a card in the chat, and what it carries, show its bid only.
 * @param {any} round
 */
export function publicRound(round) {
  if (!round?.bids || !round.choices) return round;
  /** @type {Record<string, number>} */
  const bids = round.bids;
  const top = Math.max(...Object.values(bids));
  const leaders = Object.keys(bids).filter((party) => bids[party] === top);
  const acting = new Set(leaders.length === 1 ? leaders : round.order ?? []);
  /** @type {Record<string, unknown>} */
  const choices = {};
  for (const [party, choice] of Object.entries(round.choices)) {
    choices[party] = acting.has(party) ? choice : { bid: /** @type {any} */ (choice).bid };
  }
  return { ...round, choices };
}
