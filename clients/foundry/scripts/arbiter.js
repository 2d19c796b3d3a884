// Arbiter for Foundry VTT: contests started from selected tokens or the chat, their results as
// chat cards with the dice, a session's live events followed into chat, and each player rolling
// their own seat's dice (or choosing their party's skills and actions). A client of Arbiter's
// public HTTP API (docs/foundry.md).

import { ArbiterError, call, follow } from "./client.js";
import { card, escape } from "./cards.js";
import { HELP, KINDS, parse } from "./commands.js";
import {
  PACINGS,
  chaseForm,
  chaseRound,
  choiceBody,
  choiceForm,
  endBody,
  endForm,
  grantBody,
  grantForm,
  owedRolls,
  publicRound,
  skillsBody,
  skillsForm,
  startBody,
  startForm,
} from "./kinds.js";

export const MODULE = "arbiter";

/**
 * A session this GM client follows: its GM token stays in this browser (a client setting),
 * never in the world's data, which every player's client reads.
 * @typedef {{kind: string, id: string, token: string, title: string, lastEventId: string | null,
 *   seats?: boolean}} Followed seats: started here, each seat's token whispered to its player
 * @typedef {{kind: string, id: string, name: string, token: string}} Seat
 * @typedef {Seat} Party a skill-game party's token, held by the player who plays it
 * @typedef {import("./kinds.js").Owed} Owed
 * @typedef {{action: string, kind: string, id: string, owes?: Record<string, Owed[]>}} Action
 * @typedef {{querySelectorAll(selectors: string): Iterable<any>}} Root
 * @typedef {{event?: string, kind?: string, id?: string, version?: number | null, data?: any,
 *   result?: any, seat?: Seat, party?: Party}} CardFlags
 * @typedef {import("./cards.js").RollEntry} RollEntry
 * @typedef {(key: string, data?: Record<string, unknown>) => string} Translate
 */

/** The live events whose cards say only what happened: each one's name in the reader's words. */
export const EVENTS = ["dice-in", "pacing", "granted", "ended", "pending-cancelled", "seed", "deleted"];

/** What a chat card carries in its flags, to answer its buttons. */
const FLAGS = "arbiter";

/** Each card button's label: a key of lang/*.json, shown in the language of whoever reads it. */
export const LABELS = /** @type {Record<string, string>} */ ({
  play: "ARBITER.Button.Play",
  "roll-mine": "ARBITER.Button.RollMine",
  "roll-dice": "ARBITER.Button.RollDice",
  "enter-dice": "ARBITER.Button.EnterDice",
  "roll-rest": "ARBITER.Button.RollRest",
  "choose-skills": "ARBITER.Button.ChooseSkills",
  choose: "ARBITER.Button.Choose",
  "give-up": "ARBITER.Button.GiveUp",
  pacing: "ARBITER.Button.Pacing",
  grant: "ARBITER.Button.Grant",
  "end-game": "ARBITER.Button.EndGame",
});

export class Arbiter {
  /**
   * The Foundry globals of this client, read once: the module touches no others. `DialogV2`
   * is Foundry's `foundry.applications.api.DialogV2` (v13, and v12 from 12.331), used when
   * present; `Dialog` (v12's) otherwise. `Roll` builds the rolls Dice So Nice shows, and
   * rolls a seat's dice with Foundry's own dice; `playSound` plays a sound on this client
   * (Foundry's `AudioHelper.play`), `diceSound` the chat's dice sound (`CONFIG.sounds.dice`).
   * @param {{game: Game, ui: typeof ui, ChatMessage: typeof ChatMessage, Dialog: any,
   *   DialogV2?: any, Roll?: any, playSound?: (src: string) => unknown, diceSound?: string}} env
   */
  constructor(env) {
    this.game = env.game;
    this.ui = env.ui;
    this.ChatMessage = env.ChatMessage;
    this.Dialog = env.Dialog;
    this.DialogV2 = env.DialogV2 ?? null;
    this.Roll = env.Roll ?? null;
    this.playSound = env.playSound ?? null;
    this.diceSound = env.diceSound ?? null;
    /** @type {Map<string, AbortController>} one stream per followed session in this client */
    this.streams = new Map();
    /** @type {Set<Promise<unknown>>} */
    this.work = new Set();
    this.api = {
      quick: this.quick.bind(this),
      start: this.start.bind(this),
      follow: this.follow.bind(this),
      unfollow: this.unfollow.bind(this),
      play: this.play.bind(this),
      rollMine: this.rollMine.bind(this),
      rollDice: this.rollDice.bind(this),
      enterDice: this.enterDice.bind(this),
      rollRest: this.rollRest.bind(this),
      pacing: this.pacing.bind(this),
      chooseSkills: this.chooseSkills.bind(this),
      choose: this.choose.bind(this),
      grant: this.grant.bind(this),
      endGame: this.endGame.bind(this),
      action: this.action.bind(this),
      stop: this.stop.bind(this),
      settled: this.settled.bind(this),
      streams: () => [...this.streams.keys()],
    };
  }

  /** This client's user (Foundry has one from `ready` on). */
  get user() {
    const user = this.game.user;
    if (!user) throw new Error("Arbiter: no user yet");
    return user;
  }

  /** Every user of the world. */
  get users() {
    return [...(this.game.users?.values() ?? [])];
  }

  /**
   * A text the module shows, in this client's language (lang/*.json, Foundry's i18n).
   * @type {Translate}
   */
  t(key, data) {
    const i18n = this.game.i18n;
    if (!i18n) return key;
    return data ? i18n.format(key, /** @type {Record<string, string>} */ (data)) : i18n.localize(key);
  }

  registerSettings() {
    const settings = this.game.settings;
    // Foundry shows a setting's name and hint translated: they are keys of lang/*.json.
    settings.register(MODULE, "url", {
      name: "ARBITER.Settings.Url.Name",
      hint: "ARBITER.Settings.Url.Hint",
      scope: "world",
      config: true,
      type: String,
      default: "http://localhost:8000",
    });
    settings.register(MODULE, "deadline", {
      name: "ARBITER.Settings.Deadline.Name",
      hint: "ARBITER.Settings.Deadline.Hint",
      scope: "world",
      config: true,
      type: Number,
      default: 300,
    });
    settings.register(MODULE, "sessions", { scope: "client", config: false, type: Object, default: {} });
    settings.register(MODULE, "seats", { scope: "client", config: false, type: Object, default: {} });
    settings.register(MODULE, "parties", { scope: "client", config: false, type: Object, default: {} });
  }

  /** Follows again, from where each stream was left, every session this GM client follows. */
  ready() {
    if (!this.user.isGM) return;
    for (const session of Object.values(this.sessions())) this.stream(session);
  }

  get base() {
    return String(this.game.settings.get(MODULE, "url"));
  }

  /** This client's language, which Arbiter is asked to answer in. */
  get language() {
    return this.game.i18n?.lang ?? "en";
  }

  /**
   * One call to Arbiter, in this client's language.
   * @param {string} method
   * @param {string} path
   * @param {{body?: unknown, token?: string}} [options]
   */
  call(method, path, options = {}) {
    return call(this.base, method, path, { ...options, language: this.language });
  }

  /** @returns {Record<string, Followed>} */
  sessions() {
    return { ...(this.game.settings.get(MODULE, "sessions") ?? {}) };
  }

  /** @returns {Record<string, Seat>} */
  seats() {
    return { ...(this.game.settings.get(MODULE, "seats") ?? {}) };
  }

  /** @returns {Record<string, Party>} by `<session id>/<party>` */
  parties() {
    return { ...(this.game.settings.get(MODULE, "parties") ?? {}) };
  }

  /**
   * @template T
   * @param {Promise<T>} promise
   */
  track(promise) {
    const tracked = promise.catch((error) => this.fail(error));
    this.work.add(tracked);
    tracked.finally(() => this.work.delete(tracked));
    return tracked;
  }

  /** Resolves once every command and button this client answered is done. */
  async settled() {
    while (this.work.size > 0) await Promise.all([...this.work]);
  }

  /** @param {unknown} error */
  fail(error) {
    const message = error instanceof Error ? error.message : String(error);
    const text =
      error instanceof ArbiterError
        ? this.t("ARBITER.Notify.Refused", { message, status: error.status })
        : this.t("ARBITER.Notify.Failed", { message });
    this.ui.notifications.error(text);
  }

  /**
   * @param {string} content
   * @param {object} [flags]
   * @param {string[]} [whisper]
   */
  post(content, flags = {}, whisper) {
    /** @type {Record<string, unknown>} */
    const data = { content, speaker: { alias: "Arbiter" }, flags: { [FLAGS]: flags } };
    if (whisper) data.whisper = whisper;
    return this.ChatMessage.create(data);
  }

  /**
   * Dice So Nice, when the world has it: a result's dice rolled on the screen, as a Roll of
   * those very values, before its card comes (and shown to every client).
   * @param {RollEntry[] | undefined} rolls
   */
  async showDice(rolls) {
    const dice3d = /** @type {any} */ (this.game).dice3d;
    if (!dice3d || !this.Roll || !rolls?.length) return;
    const data = rollData(rolls);
    if (data === null) return;
    await dice3d.showForRoll(this.Roll.fromData(data), this.user, true);
  }

  /**
   * A form in a dialog: DialogV2 where Foundry has it, else v12's Dialog. `submit` gets the
   * form's values by name once `action`'s button is pressed.
   * @param {{title: string, content: string, action: string, label: string,
   *   submit: (form: Record<string, string>) => void}} spec
   */
  dialog(spec) {
    const cancel = this.t("ARBITER.Button.Cancel");
    if (this.DialogV2) {
      // DialogV2 wraps its content in a form of its own: the button's `form`.
      const dialog = new this.DialogV2({
        window: { title: spec.title },
        content: spec.content,
        buttons: [
          { action: spec.action, label: spec.label, default: true, callback: (/** @type {Event} */ _event, /** @type {any} */ button) => spec.submit(values(button.form)) },
          { action: "cancel", label: cancel },
        ],
      });
      dialog.render({ force: true });
      return dialog;
    }
    const dialog = new this.Dialog({
      title: spec.title,
      content: `<form>${spec.content}</form>`,
      buttons: {
        [spec.action]: { label: spec.label, callback: (/** @type {any} */ html) => spec.submit(values(html)) },
        cancel: { label: cancel },
      },
      default: spec.action,
    });
    dialog.render(true);
    return dialog;
  }

  /**
   * The `chatMessage` hook: an /arbiter line is answered here and never posted as it is.
   * @param {string} message
   * @returns {boolean} false when the line was ours
   */
  chatMessage(message) {
    const command = parse(message);
    if (command === null) return true;
    switch (command.command) {
      case "quick":
        this.track(this.quick(command.a, command.b));
        break;
      case "start":
        if (this.gmOnly()) this.start(command.kind, this.selectedTokens());
        break;
      case "follow":
        this.track(this.follow(command.kind, command.id, command.token, `${command.kind} ${command.id.slice(0, 8)}`));
        break;
      case "unfollow":
        this.track(this.unfollow(command.id));
        break;
      case "play":
        if (this.gmOnly()) this.track(this.play(command.id ?? this.latest()));
        break;
      case "roll":
        this.track(this.rollMine(command.id ?? this.latestSeat()));
        break;
      default:
        if (command.error) this.ui.notifications.warn(this.t(command.error, { verb: command.verb ?? "" }));
        this.post(`<div class="arbiter-card"><ul>${HELP.map((line) => `<li>${escape(this.t(line))}</li>`).join("")}</ul></div>`, {}, [this.user.id]);
    }
    return false;
  }

  /** Whether this user is a GM; if not, says so. */
  gmOnly() {
    if (this.user.isGM) return true;
    this.ui.notifications.warn(this.t("ARBITER.Notify.GMOnly"));
    return false;
  }

  /** The session started or followed last in this client. */
  latest() {
    const ids = Object.keys(this.sessions());
    return ids.length ? ids[ids.length - 1] : null;
  }

  latestSeat() {
    const ids = Object.keys(this.seats());
    return ids.length ? ids[ids.length - 1] : null;
  }

  /**
   * A GURPS quick contest, rolled now: one card with the result and the dice.
   * @param {{name: string, skill: number}} a
   * @param {{name: string, skill: number}} b
   */
  async quick(a, b) {
    const answer = await this.call("POST", "/v1/gurps/quick-contest", { body: { a, b } });
    await this.showDice(answer.rolls);
    return this.post(
      card({ title: this.t("ARBITER.Quick.Title", { a: a.name, b: b.name }), summary: answer.summary, rolls: answer.rolls, supplied: this.t("ARBITER.Card.Supplied") }),
      { event: "quick", result: answer },
    );
  }

  /** The canvas's selected tokens, as the dialog's competitors. */
  selectedTokens() {
    const controlled = canvas?.tokens?.controlled ?? [];
    return controlled.map((token) => {
      const owner = this.users.find((user) => !user.isGM && token.actor?.testUserPermission(user, "OWNER"));
      return { name: String(token.name), owner: owner?.id ?? "" };
    });
  }

  /**
   * The dialog of a long-running contest, filled in from the selected tokens: who competes,
   * their numbers, and which player holds each one's seat (rolls its dice) or party.
   * @param {keyof typeof KINDS} kind
   * @param {{name: string, owner: string}[]} competitors
   */
  start(kind, competitors) {
    const players = this.users.filter((user) => !user.isGM).map((user) => ({ id: String(user.id), name: String(user.name) }));
    return this.dialog({
      title: this.t("ARBITER.Dialog.Start", { kind: this.t(KINDS[kind].title) }),
      content: startForm(kind, this.t.bind(this), competitors, players),
      action: "start",
      label: this.t("ARBITER.Button.Start"),
      submit: (form) => {
        this.track(this.create(kind, form));
      },
    });
  }

  /**
   * Creates the session (with a seat per competitor, or a token per party), follows it into
   * chat, and whispers each seat's or party's token to the player holding it.
   * @param {keyof typeof KINDS} kind
   * @param {Record<string, string>} form
   */
  async create(kind, form) {
    const path = KINDS[kind].path;
    const start = startBody(kind, form);
    const created = await this.call("POST", `/v1/${path}`, { body: start.body });
    const title = this.t("ARBITER.Title", { kind: this.t(KINDS[kind].title), names: start.names.join(" vs ") });
    await this.follow(path, created.id, created.tokens.gm, title, start.seats.length > 0);
    const seats = created.tokens.seats ?? {};
    for (const { name, holder } of start.seats) {
      if (!holder || !seats[name]) continue;
      await this.post(
        card({ title: this.t("ARBITER.Seat.Title", { title, name }), summary: this.t("ARBITER.Seat.Summary") }),
        { seat: { kind: path, id: created.id, name, token: seats[name] } },
        [holder],
      );
    }
    const parties = created.tokens.parties ?? {};
    for (const { name, holder } of start.parties) {
      if (!holder || !parties[name]) continue;
      await this.post(
        card({ title: this.t("ARBITER.Party.Title", { title, name }), summary: this.t("ARBITER.Party.Summary") }),
        { party: { kind: path, id: created.id, name, token: parties[name] } },
        [holder],
      );
    }
    return created;
  }

  /**
   * Follows a session's live events into chat (one stream per session in this client).
   * @param {string} kind
   * @param {string} id
   * @param {string} token
   * @param {string} title
   * @param {boolean} [seats] whether its seats' players hold their tokens in this world
   */
  async follow(kind, id, token, title, seats = false) {
    const sessions = this.sessions();
    sessions[id] = sessions[id] ?? { kind, id, token, title, lastEventId: null, seats };
    await this.game.settings.set(MODULE, "sessions", sessions);
    this.stream(sessions[id]);
  }

  /** @param {string} id */
  async unfollow(id) {
    this.streams.get(id)?.abort();
    this.streams.delete(id);
    const sessions = this.sessions();
    delete sessions[id];
    await this.game.settings.set(MODULE, "sessions", sessions);
  }

  /** Ends every stream of this client (a reload does the same). */
  stop() {
    for (const controller of this.streams.values()) controller.abort();
    this.streams.clear();
  }

  /** @param {Followed} session */
  stream(session) {
    if (this.streams.has(session.id)) return;
    const controller = new AbortController();
    this.streams.set(session.id, controller);
    follow({
      base: this.base,
      kind: session.kind,
      id: session.id,
      token: session.token,
      lastEventId: session.lastEventId,
      language: this.language,
      signal: controller.signal,
      onEvent: async (event) => {
        // What the chat shows every reader: a skill game's losing actions stay sealed.
        const data = shownData(session.kind, event.data);
        // A card posted before a reload whose id was not kept yet is not posted again.
        const version = event.id === null ? null : Number(event.id);
        if (version === null || !this.posted(session.id, version, event.event)) {
          // A skill game's dice roll with its skills; its revealed round only repeats them.
          await this.showDice(session.kind === "skill-games" ? data?.rolls : data?.round?.rolls);
          await this.post(eventCard(session, event.event, data, this.t.bind(this)), {
            event: event.event,
            kind: session.kind,
            id: session.id,
            version,
            data,
          });
        }
        const sessions = this.sessions();
        if (sessions[session.id]) {
          sessions[session.id] = { ...sessions[session.id], lastEventId: event.id };
          await this.game.settings.set(MODULE, "sessions", sessions);
        }
        // A finished session changes no more: its stream is let go.
        if (event.data?.session?.status === "finished") await this.unfollow(session.id);
      },
      onError: (error) => console.warn(`${MODULE} | ${session.title}: the live events dropped; resuming`, error),
    })
      .then(async (last) => {
        if (controller.signal.aborted) return;
        this.streams.delete(session.id);
        if (last !== null) await this.unfollow(session.id); // deleted: nothing more to follow
      })
      .catch(async (error) => {
        this.streams.delete(session.id);
        this.fail(error);
        // Gone (deleted, or purged while away), or the token no longer its: let it go.
        if (error instanceof ArbiterError && (error.status === 404 || error.status === 401)) await this.unfollow(session.id);
      });
  }

  /**
   * Whether the chat holds this event's card already (a stream opened afresh shows the
   * session at the version of its last change: another event, its own card).
   * @param {string} id
   * @param {number} version
   * @param {string} event
   */
  posted(id, version, event) {
    for (const message of this.game.messages?.values() ?? []) {
      const flags = message.flags?.[FLAGS];
      if (flags?.id === id && flags.version === version && flags.event === event) return true;
    }
    return false;
  }

  /**
   * The GM plays the next round: in a session started here, waiting for the seats' dice until
   * the deadline; in one followed from elsewhere (whose seats, if any, are not in this world),
   * with the server's dice. A chase's increment takes its terrain and the escapee's tactic
   * (`round`, from the GM's dialog).
   * @param {string | null} id
   * @param {Record<string, unknown>} [round]
   */
  async play(id, round = {}) {
    const session = id === null ? undefined : this.sessions()[id];
    if (!session) throw new Error(this.t("ARBITER.Notify.NoSession"));
    if (session.kind === "chases" && !("terrain" in round)) return this.chaseDialog(session.id);
    if (session.kind === "skill-games") throw new Error(this.t("ARBITER.Notify.NoRounds"));
    const deadline = Number(this.game.settings.get(MODULE, "deadline"));
    return this.call("POST", `/v1/${session.kind}/${session.id}/rounds`, {
      token: session.token,
      body: session.seats ? { ...round, collect: true, deadline_seconds: deadline } : round,
    });
  }

  /**
   * A chase's increment: the GM names the terrain (its check, and where the API takes them a
   * DC, an obstacle or hazard before the check, and a mounted increment when both sides have
   * a mount) and the escapee's tactic.
   * @param {string} id
   */
  async chaseDialog(id) {
    const session = this.sessions()[id];
    const chase = await this.call("GET", `/v1/chases/${id}`, { token: session?.token });
    const mounted = Boolean(chase.config?.escapee?.mount && chase.config?.chaser?.mount);
    return this.dialog({
      title: this.t("ARBITER.Dialog.Chase"),
      content: chaseForm(this.t.bind(this), { mounted }),
      action: "play",
      label: this.t("ARBITER.Button.Play"),
      submit: (form) => {
        this.track(this.play(id, chaseRound(form)));
      },
    });
  }

  /**
   * The chaser gives up: the chase ends.
   * @param {string} id
   */
  async giveUp(id) {
    const session = this.sessions()[id];
    if (!session) throw new Error(this.t("ARBITER.Notify.NoGMToken"));
    return this.call("POST", `/v1/${session.kind}/${session.id}/end`, { token: session.token, body: { reason: "gave-up" } });
  }

  /**
   * A racer's pacing for the whole race, before its first increment: a player sets their own
   * seat's racer's, the GM any racer's.
   * @param {string} id
   */
  async pacing(id) {
    const seat = this.user.isGM ? undefined : this.seats()[id];
    const followed = this.user.isGM ? this.sessions()[id] : undefined;
    const token = seat?.token ?? followed?.token;
    if (!token) {
      this.ui.notifications.warn(this.t("ARBITER.Notify.NoSeat"));
      return null;
    }
    const race = await this.call("GET", `/v1/races/${id}`, { token });
    /** @type {string[]} */
    const names = seat ? [seat.name] : race.config.competitors.map((/** @type {any} */ racer) => String(racer.name));
    const racers = names.map((name) => `<option value="${escape(name)}">${escape(name)}</option>`).join("");
    const pacings = PACINGS.map(
      (pacing) => `<option value="${pacing}"${pacing === race.state.pacing?.[names[0]] ? " selected" : ""}>${escape(this.t(`ARBITER.Pacing.${pacing}`))}</option>`,
    ).join("");
    return this.dialog({
      title: this.t("ARBITER.Dialog.Pacing"),
      content: `<div class="arbiter-pacing"><label>${escape(this.t("ARBITER.Form.RacerName"))} <select name="name">${racers}</select></label><label>${escape(
        this.t("ARBITER.Form.Pacing"),
      )} <select name="pacing">${pacings}</select></label></div>`,
      action: "send",
      label: this.t("ARBITER.Button.Send"),
      submit: (form) => {
        const body = { name: form.name, pacing: form.pacing };
        this.track(
          this.call("POST", `/v1/races/${id}/pacing`, { token, body }).then((answer) => {
            this.ui.notifications.info(this.t("ARBITER.Notify.Answer", { summary: answer.summary ?? "" }));
            return answer;
          }),
        );
      },
    });
  }

  /**
   * The GM has the server roll for every seat the waiting round still waits for.
   * @param {string} id
   */
  async rollRest(id) {
    const session = this.sessions()[id];
    if (!session) throw new Error(this.t("ARBITER.Notify.NoGMToken"));
    const path = `/v1/${session.kind}/${session.id}`;
    const now = await this.call("GET", path, { token: session.token });
    const names = now.pending?.waiting_for ?? [];
    if (names.length === 0) return null;
    return this.call("POST", `${path}/rounds/pending/roll-for`, { token: session.token, body: { names } });
  }

  /**
   * A player rolls their own seat's dice ("roll for me"): the server rolls them, keeping any
   * the seat sent before; the round's card comes through the GM's live events.
   * @param {string | null} id
   */
  async rollMine(id) {
    const seat = id === null ? undefined : this.seats()[id];
    if (!seat) {
      this.ui.notifications.warn(this.t("ARBITER.Notify.NoSeat"));
      return null;
    }
    const answer = await this.call("POST", `/v1/${seat.kind}/${seat.id}/rounds/pending/roll-for`, {
      token: seat.token,
      body: { names: [seat.name] },
    });
    this.ui.notifications.info(this.t("ARBITER.Notify.Answer", { summary: answer.summary ?? answer.round?.summary ?? "" }));
    return answer;
  }

  /**
   * A player rolls their own seat's dice with Foundry's dice: one Foundry `Roll` per purpose
   * the seat owes in the waiting round (its sure dice, and its conditional ones where their
   * count is bounded), shown by Dice So Nice when the world has it (else the chat's dice
   * sound), then sent as the seat's dice: the round lists them as supplied by that seat.
   * @param {string | null} id
   * @param {Record<string, Owed[]>} [owes] the waiting round's, from its card (else read)
   */
  async rollDice(id, owes) {
    const seat = id === null ? undefined : this.seats()[id];
    if (!seat) {
      this.ui.notifications.warn(this.t("ARBITER.Notify.NoSeat"));
      return null;
    }
    if (!this.Roll) throw new Error(this.t("ARBITER.Notify.NoRoll"));
    const owed = owes ?? (await this.call("GET", `/v1/${seat.kind}/${seat.id}`, { token: seat.token })).pending?.owes ?? {};
    const wanted = owedRolls(seat.kind, owed[seat.name] ?? []);
    if (wanted.length === 0) return this.rollMine(id);
    /** @type {Record<string, number | number[]>} */
    const dice = {};
    const rolls = [];
    for (const { purpose, count, sides } of wanted) {
      const roll = new this.Roll(`${count}d${sides}`, {}, { flavor: `${seat.name}: ${purpose}` });
      await roll.evaluate();
      /** @type {number[]} */
      const values = roll.dice.flatMap((/** @type {any} */ die) => die.results.map((/** @type {any} */ result) => Number(result.result)));
      dice[purpose] = values.length === 1 ? values[0] : values;
      rolls.push(roll);
    }
    await this.showRolls(rolls);
    const answer = await this.call("POST", `/v1/${seat.kind}/${seat.id}/rounds/pending/dice`, {
      token: seat.token,
      body: { rolls: { [seat.name]: dice } },
    });
    this.ui.notifications.info(this.t("ARBITER.Notify.Answer", { summary: answer.summary ?? answer.round?.summary ?? "" }));
    return answer;
  }

  /**
   * Rolls made with Foundry's dice, on the screen: Dice So Nice's when the world has it (shown
   * to every client), else the chat's dice sound on this one.
   * @param {any[]} rolls
   */
  async showRolls(rolls) {
    const dice3d = /** @type {any} */ (this.game).dice3d;
    if (dice3d) {
      for (const roll of rolls) await dice3d.showForRoll(roll, this.user, true);
      return;
    }
    if (this.playSound && this.diceSound) this.playSound(this.diceSound);
  }

  /**
   * A player enters the dice they rolled at the table (or with Foundry's dice) for their own
   * seat: a dialog with a field per purpose the seat owes in the waiting round; what they leave
   * blank Arbiter rolls when the round needs it.
   * @param {string} id
   * @param {Record<string, Owed[]>} owes
   */
  enterDice(id, owes) {
    const seat = this.seats()[id];
    if (!seat) {
      this.ui.notifications.warn(this.t("ARBITER.Notify.NoSeat"));
      return null;
    }
    const owed = owes[seat.name] ?? [];
    const fields = owed.map((entry) => {
      const count = this.t(entry.most === 1 ? "ARBITER.Form.OneValue" : "ARBITER.Form.Values");
      const when = entry.when ? ` (${entry.when})` : "";
      return `<label>${escape(entry.purpose)}${escape(when)} <input name="${escape(entry.purpose)}" placeholder="${escape(count)}"></label>`;
    });
    return this.dialog({
      title: this.t("ARBITER.Dialog.Dice", { name: seat.name }),
      content: `<div class="arbiter-dice-form">${fields.join("")}</div>`,
      action: "send",
      label: this.t("ARBITER.Button.Send"),
      submit: (form) => {
        this.track(this.sendDice(seat, form));
      },
    });
  }

  /**
   * @param {Seat} seat
   * @param {Record<string, string>} form a purpose's values, as typed ("17", or "3, 4, 5")
   */
  async sendDice(seat, form) {
    /** @type {Record<string, number | number[]>} */
    const dice = {};
    for (const [purpose, typed] of Object.entries(form)) {
      const numbers = typed.split(/[\s,]+/).filter(Boolean).map(Number);
      if (numbers.length === 0) continue;
      if (numbers.some((value) => !Number.isInteger(value))) throw new Error(this.t("ARBITER.Notify.WholeNumbers", { purpose }));
      dice[purpose] = numbers.length === 1 ? numbers[0] : numbers;
    }
    const answer = await this.call("POST", `/v1/${seat.kind}/${seat.id}/rounds/pending/dice`, {
      token: seat.token,
      body: { rolls: { [seat.name]: dice } },
    });
    this.ui.notifications.info(this.t("ARBITER.Notify.Answer", { summary: answer.summary ?? answer.round?.summary ?? "" }));
    return answer;
  }

  /**
   * Whom this user plays in a skill game, and with which token: a player, the parties whose
   * tokens were whispered to them; a GM following it, the parties the GM controls.
   * @param {string} id
   * @returns {Promise<{token: string, parties: string[], session: any} | null>}
   */
  async actingFor(id) {
    if (this.user.isGM) {
      const followed = this.sessions()[id];
      if (!followed) return null;
      const session = await this.call("GET", `/v1/skill-games/${id}`, { token: followed.token });
      const parties = session.config.parties.filter((/** @type {any} */ party) => party.controller === "gm").map((/** @type {any} */ party) => party.name);
      return parties.length ? { token: followed.token, parties, session } : null;
    }
    const held = Object.values(this.parties()).filter((party) => party.id === id);
    if (held.length === 0) return null;
    const session = await this.call("GET", `/v1/skill-games/${id}`, { token: held[0].token });
    return { token: held[0].token, parties: held.map((party) => party.name), session };
  }

  /**
   * The tokens of the parties this user plays, by party.
   * @param {string} id
   * @param {string} party
   */
  partyToken(id, party) {
    if (this.user.isGM) return this.sessions()[id]?.token;
    return this.parties()[`${id}/${party}`]?.token;
  }

  /**
   * A skill-game party chooses its skills for the round (its members roll them at Arbiter).
   * @param {string} id
   */
  async chooseSkills(id) {
    const acting = await this.actingFor(id);
    if (!acting) {
      this.ui.notifications.warn(this.t("ARBITER.Notify.NoParty"));
      return null;
    }
    const { config, state } = acting.session;
    const parties = acting.parties.filter((party) => !state.skills_done.includes(party));
    if (state.phase !== "skills" || parties.length === 0) {
      this.ui.notifications.warn(this.t("ARBITER.Notify.NotYourTurn"));
      return null;
    }
    return this.dialog({
      title: this.t("ARBITER.Dialog.Skills"),
      content: skillsForm(this.t.bind(this), parties, config.skill_list, config.skills_per_round, config.parties),
      action: "send",
      label: this.t("ARBITER.Button.Send"),
      submit: (form) => {
        const body = skillsBody(form, config.parties);
        this.track(this.call("POST", `/v1/skill-games/${id}/skills`, { token: this.partyToken(id, body.party), body }));
      },
    });
  }

  /**
   * A skill-game party seals its choice: what it answers (sealed, or the round revealed) is
   * shown to this user alone; the chat learns only who has chosen, then the round.
   * @param {string} id
   */
  async choose(id) {
    const acting = await this.actingFor(id);
    if (!acting) {
      this.ui.notifications.warn(this.t("ARBITER.Notify.NoParty"));
      return null;
    }
    const { config, state } = acting.session;
    if (state.phase !== "choices") {
      this.ui.notifications.warn(this.t("ARBITER.Notify.NotYourTurn"));
      return null;
    }
    return this.dialog({
      title: this.t("ARBITER.Dialog.Choice"),
      content: choiceForm(this.t.bind(this), acting.parties, config),
      action: "send",
      label: this.t("ARBITER.Button.Seal"),
      submit: (form) => {
        const body = choiceBody(config.kind, form);
        this.track(
          this.call("POST", `/v1/skill-games/${id}/choices`, { token: this.partyToken(id, body.party), body }).then((answer) => {
            this.ui.notifications.info(this.t("ARBITER.Notify.Answer", { summary: answer.summary ?? "" }));
            return answer;
          }),
        );
      },
    });
  }

  /**
   * The GM grants a skill-game party tokens, with the reason the chat reads.
   * @param {string} id
   */
  async grant(id) {
    const session = this.sessions()[id];
    if (!session) throw new Error(this.t("ARBITER.Notify.NoGMToken"));
    const game = await this.call("GET", `/v1/skill-games/${id}`, { token: session.token });
    const parties = game.config.parties.map((/** @type {any} */ party) => String(party.name));
    return this.dialog({
      title: this.t("ARBITER.Dialog.Grant"),
      content: grantForm(this.t.bind(this), parties),
      action: "send",
      label: this.t("ARBITER.Button.Send"),
      submit: (form) => {
        this.track(this.call("POST", `/v1/skill-games/${id}/grants`, { token: session.token, body: grantBody(form) }));
      },
    });
  }

  /**
   * The GM ends a skill game now, in any phase, with an optional reason.
   * @param {string} id
   */
  endGame(id) {
    const session = this.sessions()[id];
    if (!session) throw new Error(this.t("ARBITER.Notify.NoGMToken"));
    return this.dialog({
      title: this.t("ARBITER.Dialog.EndGame"),
      content: endForm(this.t.bind(this)),
      action: "end",
      label: this.t("ARBITER.Button.EndGame"),
      submit: (form) => {
        this.track(this.call("POST", `/v1/skill-games/${id}/end`, { token: session.token, body: endBody(form) }));
      },
    });
  }

  /**
   * A card's button.
   * @param {Action} action
   */
  action(action) {
    switch (action.action) {
      case "play":
        return this.track(this.play(action.id));
      case "roll-mine":
        return this.track(this.user.isGM ? this.rollRest(action.id) : this.rollMine(action.id));
      case "roll-rest":
        return this.track(this.rollRest(action.id));
      case "roll-dice":
        return this.track(this.rollDice(action.id, action.owes));
      case "enter-dice":
        return this.enterDice(action.id, action.owes ?? {});
      case "choose-skills":
        return this.track(this.chooseSkills(action.id));
      case "choose":
        return this.track(this.choose(action.id));
      case "give-up":
        return this.track(this.giveUp(action.id));
      case "pacing":
        return this.track(this.pacing(action.id));
      case "grant":
        return this.track(this.grant(action.id));
      case "end-game":
        return this.track(Promise.resolve().then(() => this.endGame(action.id)));
      default:
        return Promise.resolve(null);
    }
  }

  /**
   * `createChatMessage`: a seat's or a party's token whispered to this player is kept in this
   * browser, until its session's deletion comes by.
   * @param {any} message
   */
  received(message) {
    const flags = message.flags?.[FLAGS];
    if (flags?.event === "deleted" && !this.user.isGM) {
      const seats = this.seats(); // the session is gone, and its seat with it
      if (seats[flags.id]) {
        delete seats[flags.id];
        this.track(this.game.settings.set(MODULE, "seats", seats));
      }
      const parties = this.parties();
      const gone = Object.keys(parties).filter((key) => parties[key].id === flags.id);
      for (const key of gone) delete parties[key];
      if (gone.length) this.track(this.game.settings.set(MODULE, "parties", parties));
      return;
    }
    if (this.user.isGM || !(message.whisper ?? []).includes(this.user.id)) return;
    if (flags?.seat) {
      const seats = this.seats();
      seats[flags.seat.id] = flags.seat;
      this.track(this.game.settings.set(MODULE, "seats", seats));
    }
    if (flags?.party) {
      const parties = this.parties();
      parties[`${flags.party.id}/${flags.party.name}`] = flags.party;
      this.track(this.game.settings.set(MODULE, "parties", parties));
    }
  }

  /**
   * `renderChatMessage` (v12, jQuery) or `renderChatMessageHTML` (v13, HTMLElement): wires the
   * card's buttons, hiding the GM's from players, each labelled in this client's language.
   * @param {any} message
   * @param {any} html
   */
  render(message, html) {
    const flags = message.flags?.[FLAGS];
    if (!flags?.id) return;
    /** @type {Root} */
    const root = html?.[0] ?? html;
    for (const button of root.querySelectorAll("[data-arbiter-action]")) {
      const name = button.dataset.arbiterAction;
      const hidden = this.user.isGM ? button.dataset.playersOnly !== undefined : button.dataset.gmOnly !== undefined;
      if (hidden) {
        button.remove();
        continue;
      }
      if (LABELS[name]) button.textContent = this.t(LABELS[name]);
      const owes = flags.data?.pending?.owes;
      button.addEventListener("click", () => this.action({ action: name, kind: flags.kind, id: flags.id, owes }));
    }
  }
}

/**
 * A form's values by name (`html` is the dialog's jQuery in v12, its element in v13, the
 * form of DialogV2's button).
 * @param {any} html
 * @returns {Record<string, string>}
 */
export function values(html) {
  /** @type {Root} */
  const root = html?.[0] ?? html;
  /** @type {Record<string, string>} */
  const found = {};
  for (const field of root.querySelectorAll("[name]")) found[field.name] = String(field.value);
  return found;
}

/**
 * The data of a Roll holding a result's dice as they fell (Foundry's `Roll.fromData`): one Die
 * term per roll entry of `NdM`, its results those values; entries of any other shape (a
 * notation with modifiers) are left out. Null when none is left.
 * @param {RollEntry[]} rolls
 */
export function rollData(rolls) {
  /** @type {any[]} */
  const terms = [];
  let total = 0;
  for (const roll of rolls) {
    const match = /^(\d+)d(\d+)$/.exec(roll.dice);
    if (!match || Number(match[1]) !== roll.values.length) continue;
    if (terms.length) terms.push({ class: "OperatorTerm", operator: "+", options: {}, evaluated: true });
    terms.push({
      class: "Die",
      number: roll.values.length,
      faces: Number(match[2]),
      modifiers: [],
      results: roll.values.map((value) => ({ result: value, active: true })),
      options: { flavor: roll.who ? `${roll.who}: ${roll.purpose}` : roll.purpose },
      evaluated: true,
    });
    total += roll.values.reduce((sum, value) => sum + value, 0);
  }
  if (terms.length === 0) return null;
  const formula = terms.map((term) => (term.class === "Die" ? `${term.number}d${term.faces}` : term.operator)).join(" ");
  return { class: "Roll", formula, terms, total, evaluated: true, options: {} };
}

/**
 * A live event's data as the chat may show it to every reader: a skill game's revealed round
 * without the losing parties' actions (the GM's token reads them; no player may).
 * @param {string} kind
 * @param {any} data
 */
export function shownData(kind, data) {
  if (kind !== "skill-games" || !data?.round) return data;
  return { ...data, round: publicRound(data.round) };
}

/**
 * The buttons of a card after a change: what comes next in the session.
 * @param {Followed} session
 * @param {any} state the session
 * @returns {{action: string, only?: "gm" | "players"}[]}
 */
function next(session, state) {
  if (state?.status !== "active") return [];
  // Only a GM plays a round, grants or ends a game: a player's card has no such button.
  const gm = /** @type {const} */ ("gm");
  // A skill game's GM grants tokens, or ends it, in any phase.
  if (session.kind === "skill-games") {
    return [{ action: state.state?.phase === "choices" ? "choose" : "choose-skills" }, { action: "grant", only: gm }, { action: "end-game", only: gm }];
  }
  if (state.pending) return [];
  if (session.kind === "chases") return [{ action: "play", only: gm }, { action: "give-up", only: gm }];
  // A race's pacing is chosen before its first increment, by each racer's player (or the GM).
  if (session.kind === "races" && !state.state?.increment) return [{ action: "play", only: gm }, { action: "pacing" }];
  return [{ action: "play", only: gm }];
}

/**
 * The card of one live event.
 * @param {Followed} session
 * @param {string} event
 * @param {any} data
 * @param {Translate} t
 */
export function eventCard(session, event, data, t) {
  const state = data?.session;
  const active = state?.status === "active";
  // Labels are set in each reader's language as the card is rendered (`render`, LABELS).
  const label = (/** @type {{action: string, only?: "gm" | "players"}} */ button) => ({ ...button, label: t(LABELS[button.action]) });
  const supplied = t("ARBITER.Card.Supplied");
  switch (event) {
    case "session":
      return card({ title: session.title, summary: state?.summary, buttons: next(session, state).map(label) });
    case "round":
      return card({
        title: t("ARBITER.Card.Round", { title: session.title, number: data.round?.number ?? "" }),
        summary: data.summary ?? data.round?.summary,
        cards: data.round?.cards,
        rolls: data.round?.rolls,
        supplied,
        buttons: next(session, state).map(label),
        footer: active ? undefined : state?.summary,
      });
    case "pending":
      return card({
        title: t("ARBITER.Card.Pending", { title: session.title, number: data.pending?.number ?? "" }),
        summary: data.summary,
        buttons: [
          { action: "roll-dice", only: /** @type {const} */ ("players") },
          { action: "roll-mine", only: /** @type {const} */ ("players") },
          { action: "enter-dice", only: /** @type {const} */ ("players") },
          { action: "roll-rest", only: /** @type {const} */ ("gm") },
        ].map(label),
      });
    case "skills":
      return card({
        title: t("ARBITER.Card.Skills", { title: session.title, party: data.party ?? "" }),
        summary: data.summary,
        rolls: data.rolls,
        supplied,
        buttons: next(session, state).map(label),
      });
    case "submitted":
      return card({ title: t("ARBITER.Card.Sealed", { title: session.title, party: data.party ?? "" }), summary: data.summary, buttons: next(session, state).map(label) });
    case "revealed":
      return card({
        title: t("ARBITER.Card.Round", { title: session.title, number: data.round?.number ?? "" }),
        summary: data.summary ?? data.round?.summary,
        lines: (data.round?.effects ?? []).map((/** @type {any} */ effect) => `${effect.party}: ${effect.action}: ${effect.text}`),
        rolls: data.round?.rolls,
        supplied,
        buttons: next(session, state).map(label),
        footer: active ? undefined : state?.summary,
      });
    default: {
      const named = EVENTS.includes(event) ? t(`ARBITER.Event.${event}`) : event;
      return card({ title: `${session.title}: ${named}`, summary: data?.summary ?? state?.summary, buttons: event === "deleted" ? [] : next(session, state).map(label) });
    }
  }
}

/** @type {Arbiter | null} */
let arbiter = null;

Hooks.once("init", () => {
  const DialogV2 = /** @type {any} */ (globalThis).foundry?.applications?.api?.DialogV2;
  // v13 warns of the global Dialog's deprecation when it is read: only an older v12 reads it.
  const Dialog = DialogV2 ? null : /** @type {any} */ (globalThis).Dialog;
  // Foundry's AudioHelper (foundry.audio, v12 and v13): a sound on this client alone.
  const AudioHelper = /** @type {any} */ (globalThis).foundry?.audio?.AudioHelper;
  const playSound = AudioHelper ? (/** @type {string} */ src) => AudioHelper.play({ src, volume: 0.8, autoplay: true, loop: false }, false) : undefined;
  const diceSound = /** @type {any} */ (globalThis).CONFIG?.sounds?.dice;
  arbiter = new Arbiter({ game, ui, ChatMessage, Dialog, DialogV2, Roll: /** @type {any} */ (globalThis).Roll, playSound, diceSound });
  arbiter.registerSettings();
  const module = game.modules?.get(MODULE);
  if (module) module.api = arbiter.api;
  const generation = Number(game.release?.generation ?? 12);
  /** @param {ChatMessage} message @param {unknown} html */
  const render = (message, html) => arbiter?.render(message, html);
  // v13 hands the card's element to renderChatMessageHTML; v12, its jQuery to renderChatMessage.
  if (generation >= 13) Hooks.on(/** @type {any} */ ("renderChatMessageHTML"), render);
  else Hooks.on(/** @type {any} */ ("renderChatMessage"), render);
});
Hooks.once("ready", () => arbiter?.ready());
Hooks.on("chatMessage", (_log, message) => arbiter?.chatMessage(message) ?? true);
Hooks.on("createChatMessage", (/** @type {ChatMessage} */ message) => arbiter?.received(message));
