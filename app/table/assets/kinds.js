// What the table page knows of each kind of session: its presets and rule options for the
// creation form, its competitors, the dice a round takes from each, and how its odds read.
// The bodies are the API's own (docs/api.md); the service checks them.

import { t } from "./i18n.js";

const LYDIA = { name: "Lydia", strength_mod: 2, con_score: 12, con_mod: 1 };
const OGRE = { name: "Ogre", strength_mod: 6, con_score: 15, con_mod: 2 };
const ANN = { name: "Ann", speed: 30, mods: { strength: 2 }, feats: ["run"] };
const BOB = { name: "Bob", speed: 40, mods: { strength: 1 }, pacing: "sprint" };
const RALF = { name: "Ralf", speed: 30, mods: { dexterity: 3, hide: 8 } };
const GUARD = { name: "the guard", speed: 30, mods: { spot: 2, balance: 1 } };
const SKILL_PARTIES = [
  { name: "Heroes", controller: "players", members: [{ name: "Ann", skills: { Athletics: 5, Stealth: 2 } }] },
  { name: "Bandits", controller: "players", members: [{ name: "Rook", skills: { Stealth: 6, Athletics: 1 } }] },
];
const BIDDING_ACTIONS = [
  {
    name: "Charge",
    effects: [
      { min_margin: 0, text: "A scramble forward.", progress: 1 },
      { min_margin: 2, text: "A clean break.", progress: 2 },
    ],
  },
  { name: "Rally", effects: [{ text: "Second wind.", tokens: 2 }] },
];

/** A rule option of the creation form: a field of the body, its input and its choices. */
function option(key, label, type, extra = {}) {
  return { key, label, type, ...extra };
}

export const KINDS = {
  "arm-wrestles": {
    get title() {
      return t("Arm wrestle");
    },
    rounds: true,
    seats: true,
    names: (session) => [session.config.a.name, session.config.b.name],
    get purposes() {
      return [
        { name: "strength", label: t("Strength d20"), main: true },
        { name: "constitution", label: t("Constitution d20") },
        { name: "damage", label: t("damage dice"), list: true },
      ];
    },
    presets: {
      "Lydia against the Ogre": { a: LYDIA, b: OGRE },
      "Lydia against the Ogre, with spikes": { a: LYDIA, b: OGRE, variant: "spikes" },
      "Two evenly matched farmhands": {
        a: { name: "Hal", strength_mod: 2, con_score: 13, con_mod: 1 },
        b: { name: "Wat", strength_mod: 2, con_score: 13, con_mod: 1 },
        target: 10,
      },
    },
    get options() {
      return [
        option("target", t("Target DS"), "number", { min: 1 }),
        option("variant", t("Variant"), "select", { choices: ["standard", "spikes", "psychic", "mental"] }),
        option("max_rounds", t("Most rounds"), "number", { min: 1 }),
      ];
    },
    outcomes: (session, odds) => [
      [t("{name} wins", { name: odds.a }), odds.a_wins, odds.standard_error],
      [t("{name} wins", { name: odds.b }), odds.b_wins],
      [t("a draw"), odds.draw],
      [t("undecided"), odds.undecided],
    ],
    facts: (odds) => (odds.expected_rounds != null ? [t("{rounds} rounds expected", { rounds: odds.expected_rounds.toFixed(2) })] : []),
  },
  "regular-contests": {
    get title() {
      return t("Regular contest");
    },
    rounds: true,
    seats: true,
    names: (session) => [session.config.a.name, session.config.b.name],
    get purposes() {
      return [{ name: "success", label: t("3d6"), main: true, list: true, sides: 6, count: 3 }];
    },
    presets: {
      "The Giant against the Ogre": { a: { name: "Giant", skill: 600 }, b: { name: "Ogre", skill: 500 } },
      "Two duellists": { a: { name: "Ines", skill: 13 }, b: { name: "Bram", skill: 12 } },
    },
    get options() {
      return [
        option("normalize", t("Normalize high skills"), "checkbox", { default: true }),
        option("max_rounds", t("Most rounds"), "number", { min: 1 }),
        option("seconds_per_round", t("Seconds per round"), "number", { min: 1 }),
      ];
    },
    outcomes: (session, odds) => {
      const [a, b] = KINDS["regular-contests"].names(session);
      return [
        [t("{name} wins", { name: a }), odds.a_wins],
        [t("{name} wins", { name: b }), odds.b_wins],
        [t("undecided"), odds.undecided],
      ];
    },
    facts: (odds) => (odds.expected_rounds != null ? [t("{rounds} rounds expected", { rounds: odds.expected_rounds.toFixed(2) })] : []),
  },
  races: {
    get title() {
      return t("Race");
    },
    rounds: true,
    seats: true,
    names: (session) => session.config.competitors.map((competitor) => competitor.name),
    get purposes() {
      return [
        { name: "check", label: t("increment d20"), main: true },
        { name: "obstacle", label: t("obstacle d20s"), list: true },
        { name: "constitution", label: t("Constitution d20") },
        { name: "ride", label: t("Ride d20") },
        { name: "damage", label: t("damage dice"), list: true },
      ];
    },
    presets: {
      "A dash: Ann and Bob": { course: "dash", competitors: [ANN, BOB] },
      "A typical course": { course: "typical", competitors: [ANN, BOB] },
      "A marathon": { course: "marathon", competitors: [ANN, BOB] },
    },
    get options() {
      return [
        option("course", t("Course"), "select", { choices: ["dash", "typical", "marathon", "dakrothian-marathon"] }),
        option("endurance_rule", t("Endurance rule"), "checkbox", { default: true }),
        option("damage_instead_of_forfeit", t("Damage instead of forfeit"), "checkbox", { default: false }),
        option("speed_bonus", t("Speed bonus"), "select", { choices: ["increment", "every-roll"] }),
        option("pacing_rule", t("Pacing rule"), "select", { choices: ["safe-increments", "constitution-score"] }),
      ];
    },
    outcomes: (session, odds) => [
      ...Object.entries(odds.wins || {}).map(([name, p]) => [t("{name} wins", { name }), p]),
      [t("a tie"), odds.tie],
      ...Object.entries(odds.forfeits || {})
        .filter(([, p]) => p > 0)
        .map(([name, p]) => [t("{name} forfeits", { name }), p]),
    ],
    facts: (odds) => (odds.trials > 1 ? [t("estimated from {trials} races", { trials: odds.trials })] : []),
  },
  chases: {
    get title() {
      return t("Chase");
    },
    rounds: true,
    seats: true,
    terrain: true,
    names: (session) => [session.config.escapee.name, session.config.chaser.name],
    get purposes() {
      return [
        { name: "check", label: t("increment d20"), main: true },
        { name: "dexterity", label: t("Dexterity d20 (hazard)") },
        { name: "hazard", label: t("hazard d20") },
        { name: "hide", label: t("Hide d20s"), list: true },
        { name: "spot", label: t("Spot d20s"), list: true },
        { name: "constitution", label: t("Constitution d20") },
        { name: "obstacle", label: t("obstacle d20s"), list: true },
        { name: "ride", label: t("Ride d20") },
        { name: "damage", label: t("damage dice"), list: true },
      ];
    },
    presets: {
      "Ralf flees the guard (lead 12)": {
        escapee: RALF,
        chaser: GUARD,
        start: { mode: "lead", lead: 12 },
        hazard_base_cost: 0,
      },
      "Ralf flees the guard, on initiative": { escapee: RALF, chaser: GUARD, start: { mode: "initiative" } },
    },
    get options() {
      return [
        option("hazard_base_cost", t("Hazard base cost"), "number", { min: 0 }),
        option("endurance_rule", t("Endurance rule"), "checkbox", { default: true }),
        option("damage_instead_of_forfeit", t("Damage instead of forfeit"), "checkbox", { default: false }),
        option("max_rounds", t("Most increments"), "number", { min: 1 }),
      ];
    },
    outcomes: (session, odds) => [
      [t("{chaser} catches {escapee}", { chaser: odds.chaser, escapee: odds.escapee }), odds.caught],
      [t("{name} escapes", { name: odds.escapee }), odds.escaped],
      [t("the chaser gives up"), odds.gave_up],
    ],
    facts: (odds) => (odds.expected_increments != null ? [t("{increments} increments expected", { increments: odds.expected_increments.toFixed(2) })] : []),
  },
  "skill-games": {
    get title() {
      return t("Skill game");
    },
    rounds: false,
    seats: false,
    parties: true,
    names: (session) => session.config.parties.map((party) => party.name),
    purposes: [],
    presets: {
      "Heroes and Bandits (bidding)": {
        dc: 15,
        skill_list: ["Athletics", "Stealth", "Persuasion"],
        skills_per_round: 2,
        kind: "bidding",
        actions: BIDDING_ACTIONS,
        goal: 6,
        max_rounds: 10,
        parties: SKILL_PARTIES,
      },
      "Heroes and Bandits (option)": {
        dc: 15,
        skill_list: ["Athletics", "Stealth", "Persuasion"],
        skills_per_round: 2,
        kind: "option",
        actions: [
          { name: "Charge", cost: 1, effects: [{ text: "A scramble forward.", progress: 1 }] },
          { name: "Sprint", cost: 2, effects: [{ text: "A burst of speed.", progress: 2 }] },
        ],
        max_actions_per_round: 2,
        goal: 6,
        max_rounds: 10,
        parties: SKILL_PARTIES,
      },
      "Heroes against GM-run Bandits": {
        dc: 15,
        skill_list: ["Athletics", "Stealth", "Persuasion"],
        skills_per_round: 2,
        kind: "bidding",
        actions: BIDDING_ACTIONS,
        goal: 6,
        max_rounds: 10,
        parties: [SKILL_PARTIES[0], { ...SKILL_PARTIES[1], controller: "gm" }],
      },
    },
    get options() {
      return [
        option("dc", t("DC"), "number", { min: 1 }),
        option("goal", t("Goal (progress)"), "number", { min: 1 }),
        option("max_rounds", t("Most rounds"), "number", { min: 1 }),
        option("skills_per_round", t("Skills per round"), "number", { min: 1 }),
        option("token_rule", t("Token rule"), "select", { choices: ["exceed", "meet"] }),
      ];
    },
    outcomes: () => [],
    facts: () => [],
  },
};

export const KIND_NAMES = Object.keys(KINDS);

/** A probability as a person reads it: "41.3%", "< 0.1%" for a rare one. */
export function percent(p) {
  if (p == null) return "—";
  if (p === 0) return "0%";
  if (p === 1) return "100%";
  if (p > 0 && p < 0.0005) return "< 0.1%";
  if (p < 1 && p > 0.9995) return "> 99.9%";
  return `${(p * 100).toFixed(1)}%`;
}
