// Arbiter for Foundry VTT: contests started from selected tokens or the chat, their results as
// chat cards with the dice, a session's live events followed into chat, and each player rolling
// their own seat's dice. A client of Arbiter's public HTTP API (docs/foundry.md).

import { ArbiterError, call, follow } from "./client.js";
import { card, escape } from "./cards.js";
import { HELP, KINDS, parse } from "./commands.js";

export const MODULE = "arbiter";

/**
 * A session this GM client follows: its GM token stays in this browser (a client setting),
 * never in the world's data, which every player's client reads.
 * @typedef {{kind: string, id: string, token: string, title: string, lastEventId: string | null,
 *   seats?: boolean}} Followed seats: started here, each seat's token whispered to its player
 * @typedef {{kind: string, id: string, name: string, token: string}} Seat
 * @typedef {{purpose: string, certain: number, most: number | null, when: string | null}} Owed
 * @typedef {{action: string, kind: string, id: string, owes?: Record<string, Owed[]>}} Action
 * @typedef {{querySelectorAll(selectors: string): Iterable<any>}} Root
 * @typedef {{event?: string, kind?: string, id?: string, version?: number | null, data?: any,
 *   result?: any, seat?: Seat}} CardFlags
 */

/** What a chat card carries in its flags, to answer its buttons. */
const FLAGS = "arbiter";

export class Arbiter {
  /**
   * The Foundry globals of this client, read once: the module touches no others.
   * @param {{game: Game, ui: typeof ui, ChatMessage: typeof ChatMessage, Dialog: typeof Dialog}} env
   */
  constructor(env) {
    this.game = env.game;
    this.ui = env.ui;
    this.ChatMessage = env.ChatMessage;
    this.Dialog = env.Dialog;
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
      enterDice: this.enterDice.bind(this),
      rollRest: this.rollRest.bind(this),
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

  registerSettings() {
    const settings = this.game.settings;
    settings.register(MODULE, "url", {
      name: "Arbiter URL",
      hint: "Where this world's Arbiter answers, e.g. https://arbiter.example (its ARBITER_CORS_ORIGINS must allow this Foundry's origin).",
      scope: "world",
      config: true,
      type: String,
      default: "http://localhost:8000",
    });
    settings.register(MODULE, "deadline", {
      name: "Seconds the players have to roll",
      hint: "A round waiting for the seats' dice plays by itself after this, the server rolling what is missing.",
      scope: "world",
      config: true,
      type: Number,
      default: 300,
    });
    settings.register(MODULE, "sessions", { scope: "client", config: false, type: Object, default: {} });
    settings.register(MODULE, "seats", { scope: "client", config: false, type: Object, default: {} });
  }

  /** Follows again, from where each stream was left, every session this GM client follows. */
  ready() {
    if (!this.user.isGM) return;
    for (const session of Object.values(this.sessions())) this.stream(session);
  }

  get base() {
    return String(this.game.settings.get(MODULE, "url"));
  }

  /** @returns {Record<string, Followed>} */
  sessions() {
    return { ...(this.game.settings.get(MODULE, "sessions") ?? {}) };
  }

  /** @returns {Record<string, Seat>} */
  seats() {
    return { ...(this.game.settings.get(MODULE, "seats") ?? {}) };
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
    const text = error instanceof ArbiterError ? `Arbiter: ${message} (${error.status})` : `Arbiter: ${message}`;
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
        if (command.error) this.ui.notifications.warn(command.error);
        this.post(`<div class="arbiter-card"><ul>${HELP.map((line) => `<li>${escape(line)}</li>`).join("")}</ul></div>`, {}, [this.user.id]);
    }
    return false;
  }

  /** Whether this user is a GM; if not, says so. */
  gmOnly() {
    if (this.user.isGM) return true;
    this.ui.notifications.warn("Arbiter: only a GM starts or plays a contest.");
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
    const answer = await call(this.base, "POST", "/v1/gurps/quick-contest", { body: { a, b } });
    return this.post(
      card({ title: `Quick contest: ${a.name} vs ${b.name}`, summary: answer.summary, rolls: answer.rolls }),
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
   * their numbers, and which player holds each one's seat (rolls its dice).
   * @param {keyof typeof KINDS} kind
   * @param {{name: string, owner: string}[]} competitors
   */
  start(kind, competitors) {
    const players = this.users.filter((user) => !user.isGM);
    /** @param {string} side @param {{name: string, owner: string} | undefined} who */
    const fields = (side, who) => {
      const options = [`<option value="">GM</option>`]
        .concat(players.map((user) => `<option value="${escape(user.id)}"${user.id === who?.owner ? " selected" : ""}>${escape(user.name)}</option>`))
        .join("");
      const numbers =
        kind === "arm-wrestle"
          ? [["strength_mod", 0], ["con_score", 10], ["con_mod", 0]]
          : [["skill", 10]];
      return [
        `<fieldset><legend>${side.toUpperCase()}</legend>`,
        `<label>Name <input name="${side}.name" value="${escape(who?.name ?? "")}"></label>`,
        ...numbers.map(([field, value]) => `<label>${field} <input name="${side}.${field}" type="number" value="${value}"></label>`),
        `<label>Seat <select name="${side}.seat">${options}</select></label>`,
        `</fieldset>`,
      ].join("");
    };
    const dialog = new this.Dialog({
      title: `Arbiter: ${KINDS[kind].title}`,
      content: `<form class="arbiter-start">${fields("a", competitors[0])}${fields("b", competitors[1])}${
        kind === "arm-wrestle" ? `<label>Target DS <input name="target" type="number" value="20"></label>` : ""
      }</form>`,
      buttons: {
        start: {
          label: "Start",
          callback: (/** @type {any} */ html) => {
            this.track(this.create(kind, values(html)));
          },
        },
        cancel: { label: "Cancel" },
      },
      default: "start",
    });
    dialog.render(true);
    return dialog;
  }

  /**
   * Creates the session with a seat per competitor, follows it into chat, and whispers each
   * seat's token to the player holding it.
   * @param {keyof typeof KINDS} kind
   * @param {Record<string, string>} form
   */
  async create(kind, form) {
    const path = KINDS[kind].path;
    /** @param {string} side */
    const competitor = (side) => {
      /** @type {Record<string, string | number>} */
      const body = { name: form[`${side}.name`]?.trim() ?? "" };
      const numbers = kind === "arm-wrestle" ? ["strength_mod", "con_score", "con_mod"] : ["skill"];
      for (const field of numbers) body[field] = Number(form[`${side}.${field}`]);
      return body;
    };
    /** @type {{a: Record<string, string | number>, b: Record<string, string | number>, seats: boolean, target?: number}} */
    const body = { a: competitor("a"), b: competitor("b"), seats: true };
    if (kind === "arm-wrestle" && form.target) body.target = Number(form.target);
    const created = await call(this.base, "POST", `/v1/${path}`, { body });
    const title = `${KINDS[kind].title}: ${body.a.name} vs ${body.b.name}`;
    await this.follow(path, created.id, created.tokens.gm, title, true);
    const seats = created.tokens.seats ?? {};
    for (const side of ["a", "b"]) {
      const name = String(body[/** @type {"a" | "b"} */ (side)].name);
      const holder = form[`${side}.seat`];
      if (!holder || !seats[name]) continue;
      await this.post(
        card({ title: `Your seat in ${title}: ${name}`, summary: "When a round waits for your dice, press Roll my dice on its card, or type /arbiter roll." }),
        { seat: { kind: path, id: created.id, name, token: seats[name] } },
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
      signal: controller.signal,
      onEvent: async (event) => {
        // A card posted before a reload whose id was not kept yet is not posted again.
        const version = event.id === null ? null : Number(event.id);
        if (version === null || !this.posted(session.id, version, event.event)) await this.post(eventCard(session, event.event, event.data), {
          event: event.event,
          kind: session.kind,
          id: session.id,
          version,
          data: event.data,
        });
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
   * with the server's dice.
   * @param {string | null} id
   */
  async play(id) {
    const session = id === null ? undefined : this.sessions()[id];
    if (!session) throw new Error("no session of yours to play: start one first");
    const deadline = Number(this.game.settings.get(MODULE, "deadline"));
    return call(this.base, "POST", `/v1/${session.kind}/${session.id}/rounds`, {
      token: session.token,
      body: session.seats ? { collect: true, deadline_seconds: deadline } : {},
    });
  }

  /**
   * The GM has the server roll for every seat the waiting round still waits for.
   * @param {string} id
   */
  async rollRest(id) {
    const session = this.sessions()[id];
    if (!session) throw new Error("this client holds no GM token of that session");
    const path = `/v1/${session.kind}/${session.id}`;
    const now = await call(this.base, "GET", path, { token: session.token });
    const names = now.pending?.waiting_for ?? [];
    if (names.length === 0) return null;
    return call(this.base, "POST", `${path}/rounds/pending/roll-for`, { token: session.token, body: { names } });
  }

  /**
   * A player rolls their own seat's dice ("roll for me"): the server rolls them, keeping any
   * the seat sent before; the round's card comes through the GM's live events.
   * @param {string | null} id
   */
  async rollMine(id) {
    const seat = id === null ? undefined : this.seats()[id];
    if (!seat) {
      this.ui.notifications.warn("Arbiter: you hold no seat in that contest.");
      return null;
    }
    const answer = await call(this.base, "POST", `/v1/${seat.kind}/${seat.id}/rounds/pending/roll-for`, {
      token: seat.token,
      body: { names: [seat.name] },
    });
    this.ui.notifications.info(`Arbiter: ${answer.summary ?? answer.round?.summary ?? "rolled"}`);
    return answer;
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
      this.ui.notifications.warn("Arbiter: you hold no seat in that contest.");
      return null;
    }
    const owed = owes[seat.name] ?? [];
    const fields = owed.map((entry) => {
      const count = entry.most === 1 ? "a value" : "values, separated by commas";
      const when = entry.when ? ` (${entry.when})` : "";
      return `<label>${escape(entry.purpose)}${escape(when)} <input name="${escape(entry.purpose)}" placeholder="${count}"></label>`;
    });
    const dialog = new this.Dialog({
      title: `Arbiter: ${seat.name}'s dice`,
      content: `<form class="arbiter-dice-form">${fields.join("")}</form>`,
      buttons: {
        send: {
          label: "Send my dice",
          callback: (/** @type {any} */ html) => {
            this.track(this.sendDice(seat, values(html)));
          },
        },
        cancel: { label: "Cancel" },
      },
      default: "send",
    });
    dialog.render(true);
    return dialog;
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
      if (numbers.some((value) => !Number.isInteger(value))) throw new Error(`${purpose}: whole numbers only`);
      dice[purpose] = numbers.length === 1 ? numbers[0] : numbers;
    }
    const answer = await call(this.base, "POST", `/v1/${seat.kind}/${seat.id}/rounds/pending/dice`, {
      token: seat.token,
      body: { rolls: { [seat.name]: dice } },
    });
    this.ui.notifications.info(`Arbiter: ${answer.summary ?? answer.round?.summary ?? "sent"}`);
    return answer;
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
      case "enter-dice":
        return this.enterDice(action.id, action.owes ?? {});
      default:
        return Promise.resolve(null);
    }
  }

  /**
   * `createChatMessage`: a seat whispered to this player is kept in this browser, until its
   * session's deletion comes by.
   * @param {any} message
   */
  received(message) {
    const flags = message.flags?.[FLAGS];
    if (flags?.event === "deleted" && !this.user.isGM && this.seats()[flags.id]) {
      const seats = this.seats(); // the session is gone, and its seat with it
      delete seats[flags.id];
      this.track(this.game.settings.set(MODULE, "seats", seats));
      return;
    }
    const seat = flags?.seat;
    if (!seat || this.user.isGM) return;
    if (!(message.whisper ?? []).includes(this.user.id)) return;
    const seats = this.seats();
    seats[seat.id] = seat;
    this.track(this.game.settings.set(MODULE, "seats", seats));
  }

  /**
   * `renderChatMessage` (v12, jQuery) or `renderChatMessageHTML` (v13, HTMLElement): wires the
   * card's buttons, hiding the GM's from players.
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
      const owes = flags.data?.pending?.owes;
      button.addEventListener("click", () => this.action({ action: name, kind: flags.kind, id: flags.id, owes }));
    }
  }
}

/**
 * A form's values by name (`html` is the dialog's jQuery in v12, its element in v13).
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
 * The card of one live event.
 * @param {Followed} session
 * @param {string} event
 * @param {any} data
 */
export function eventCard(session, event, data) {
  const state = data?.session;
  const active = state?.status === "active";
  switch (event) {
    case "session":
      return card({
        title: session.title,
        summary: state?.summary,
        buttons: active && !state?.pending ? [{ action: "play", label: "Play a round" }] : [],
      });
    case "round":
      return card({
        title: `${session.title}: round ${data.round?.number ?? ""}`,
        summary: data.summary ?? data.round?.summary,
        cards: data.round?.cards,
        rolls: data.round?.rolls,
        buttons: active ? [{ action: "play", label: "Play next round" }] : [],
        footer: active ? undefined : state?.summary,
      });
    case "pending":
      return card({
        title: `${session.title}: round ${data.pending?.number ?? ""} waits for dice`,
        summary: data.summary,
        buttons: [
          { action: "roll-mine", label: "Roll my dice" },
          { action: "enter-dice", label: "Enter my dice" },
          { action: "roll-rest", label: "Roll for the rest (GM)" },
        ],
      })
        .replace('data-arbiter-action="enter-dice"', 'data-arbiter-action="enter-dice" data-players-only')
        .replace('data-arbiter-action="roll-rest"', 'data-arbiter-action="roll-rest" data-gm-only');
    default:
      return card({ title: `${session.title}: ${event}`, summary: data?.summary ?? state?.summary });
  }
}

/** @type {Arbiter | null} */
let arbiter = null;

Hooks.once("init", () => {
  arbiter = new Arbiter({ game, ui, ChatMessage, Dialog });
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
