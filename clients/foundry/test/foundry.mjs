// A stand-in for the Foundry VTT globals the module touches, faithful to how Foundry calls it:
// `Hooks` (on, once, call stopping at a false, callAll), `game` (user, users, settings with world
// and client scopes, modules, release), `ui.notifications`, `ChatMessage.create` (every client's
// `createChatMessage` hook, then the render hook of each client that may see the message:
// whispers only to their recipients and the GMs), `Dialog` and v13's
// `foundry.applications.api.DialogV2` (rendered, then a button pressed with the form's values),
// `game.i18n` (the client's language, from the installed module's `languages`, falling back to
// English as Foundry does), `Roll` (`fromData`, and `new Roll("NdM").evaluate()` rolling from a
// seeded generator, each roll recorded), Dice So Nice's `game.dice3d.showForRoll` (each call
// recorded), `foundry.audio.AudioHelper.play` with `CONFIG.sounds.dice` (each sound recorded) and
// `canvas.tokens.controlled`.
//
// Several clients share one world (its chat and world settings); each has its own user, hooks,
// client settings (a browser's localStorage) and notifications. `activate` makes one of them the
// globals, as that client's browser would see them.

import { readFileSync } from "node:fs";
import { join } from "node:path";

export class Hooks {
  constructor() {
    /** @type {Map<string, {fn: Function, once: boolean}[]>} */
    this.events = new Map();
  }
  on(name, fn) {
    this.list(name).push({ fn, once: false });
  }
  once(name, fn) {
    this.list(name).push({ fn, once: true });
  }
  list(name) {
    if (!this.events.has(name)) this.events.set(name, []);
    return this.events.get(name);
  }
  /** Foundry's Hooks.call: stops at the first handler answering false, and answers false. */
  call(name, ...args) {
    for (const hook of [...this.list(name)]) {
      if (hook.once) this.events.set(name, this.list(name).filter((other) => other !== hook));
      if (hook.fn(...args) === false) return false;
    }
    return true;
  }
  callAll(name, ...args) {
    for (const hook of [...this.list(name)]) {
      if (hook.once) this.events.set(name, this.list(name).filter((other) => other !== hook));
      hook.fn(...args);
    }
    return true;
  }
}

/** An element of a rendered card or dialog: its buttons and its named fields. */
class Element {
  constructor(html, values = {}) {
    this.html = html;
    this.buttons = [...html.matchAll(/<button\b([^>]*)>([^<]*)<\/button>/g)].map(([, attributes, label]) => {
      const action = /data-arbiter-action="([^"]*)"/.exec(attributes)?.[1];
      const dataset = { arbiterAction: action };
      if (/\bdata-gm-only\b/.test(attributes)) dataset.gmOnly = "";
      if (/\bdata-players-only\b/.test(attributes)) dataset.playersOnly = "";
      const button = {
        dataset,
        label,
        textContent: label,
        removed: false,
        listeners: [],
        addEventListener: (type, fn) => button.listeners.push({ type, fn }),
        remove: () => {
          button.removed = true;
        },
      };
      return button;
    });
    this.fields = [];
    for (const [, name, value] of html.matchAll(/<input name="([^"]*)"[^>]*?(?:value="([^"]*)")?>/g)) {
      this.fields.push({ name, value: value ?? "" });
    }
    for (const [, name, value] of html.matchAll(/<textarea name="([^"]*)">([^<]*)<\/textarea>/g)) {
      this.fields.push({ name, value: value.replaceAll("&amp;", "&") });
    }
    for (const [, name, options] of html.matchAll(/<select name="([^"]*)">([\s\S]*?)<\/select>/g)) {
      const selected = /<option value="([^"]*)" selected>/.exec(options) ?? /<option value="([^"]*)"/.exec(options);
      this.fields.push({ name, value: selected?.[1] ?? "" });
    }
    for (const field of this.fields) if (field.name in values) field.value = values[field.name];
  }
  querySelectorAll(selectors) {
    if (selectors === "[data-arbiter-action]") return this.buttons.filter((button) => !button.removed);
    if (selectors === "[name]") return this.fields;
    throw new Error(`the stand-in does not answer ${selectors}`);
  }
  /** The actions of the buttons left. */
  actions() {
    return this.querySelectorAll("[data-arbiter-action]").map((button) => button.dataset.arbiterAction);
  }
  /** The labels of the buttons left, as this client shows them. */
  labels() {
    return this.querySelectorAll("[data-arbiter-action]").map((button) => button.textContent);
  }
  /** Presses a button as its user would. */
  click(action) {
    const button = this.querySelectorAll("[data-arbiter-action]").find((one) => one.dataset.arbiterAction === action);
    if (!button) throw new Error(`no ${action} button: ${this.actions()}`);
    for (const listener of button.listeners) if (listener.type === "click") listener.fn({ preventDefault() {} });
  }
}

export class World {
  /**
   * @param {{generation?: number, module: string, dialogV2?: boolean, diceSoNice?: boolean}} options
   *   module: the installed module's folder (its module.json, lang/)
   */
  constructor({ generation = 12, module, dialogV2 = generation >= 13, diceSoNice = false }) {
    this.generation = generation;
    this.module = module;
    this.dialogV2 = dialogV2;
    this.diceSoNice = diceSoNice;
    /** Every call to Dice So Nice: who showed which dice, and how many messages the chat held. */
    this.shown = [];
    /** Every Roll evaluated with Foundry's dice: by whom, its formula and values. */
    this.rolled = [];
    /** Every sound played: by whom, which. */
    this.sounds = [];
    /** The dice's generator (mulberry32), seeded: the same run rolls the same dice. */
    this.seed = 0x5eed37;
    /** How often the module read the global Dialog where Foundry deprecates it. */
    this.deprecatedReads = 0;
    this.users = [];
    this.clients = [];
    this.messages = [];
    this.dialogs = [];
    this.world = new Map();
    this.registered = new Map();
    this.waiters = [];
    this.active = null;
  }

  user(id, name, isGM) {
    const user = { id, name, isGM };
    this.users.push(user);
    return user;
  }

  /** The translations of `lang`, as Foundry reads them from the module's `languages`. */
  translations(lang) {
    const manifest = JSON.parse(readFileSync(join(this.module, "module.json"), "utf8"));
    const entry = manifest.languages.find((one) => one.lang === lang);
    return entry ? JSON.parse(readFileSync(join(this.module, entry.path), "utf8")) : {};
  }

  /** A browser logged in as `user`, its Foundry set to `lang`. */
  client(user, lang = "en") {
    const client = { user, lang, storage: new Map(), notifications: [], rendered: new Map(), hooks: new Hooks(), canvas: { tokens: { controlled: [] } } };
    this.clients.push(client);
    return client;
  }

  /** The client's globals, as its browser has them. */
  activate(client) {
    this.active = client;
    const world = this;
    // A Collection: a Map of the users by id.
    const users = new Map(this.users.map((user) => [user.id, user]));
    const modules = new Map([["arbiter", (client.module ??= { id: "arbiter", active: true })]]);
    client.game ??= {
      user: client.user,
      users,
      modules,
      release: { generation: this.generation },
      messages: { values: () => world.messages.values() }, // the chat log, shared by the world
      settings: {
        register: (namespace, key, options) => world.registered.set(`${namespace}.${key}`, options),
        get: (namespace, key) => {
          const id = `${namespace}.${key}`;
          const options = world.registered.get(id);
          if (!options) throw new Error(`${id} is not a registered game setting`);
          const store = options.scope === "client" ? client.storage : world.world;
          return store.has(id) ? structuredClone(store.get(id)) : structuredClone(options.default);
        },
        set: async (namespace, key, value) => {
          const id = `${namespace}.${key}`;
          const options = world.registered.get(id);
          if (!options) throw new Error(`${id} is not a registered game setting`);
          if (options.scope !== "client" && !client.user.isGM) throw new Error("only a GM writes a world setting");
          (options.scope === "client" ? client.storage : world.world).set(id, structuredClone(value));
          world.notify();
          return value;
        },
      },
    };
    const own = this.translations(client.lang);
    const english = this.translations("en");
    // Foundry's i18n: the client's language, English for a key it lacks, else the key itself.
    const localize = (key) => own[key] ?? english[key] ?? key;
    client.game.i18n = {
      lang: client.lang,
      localize,
      format: (key, data = {}) => localize(key).replace(/{[^}]+}/g, (field) => String(data[field.slice(1, -1)])),
    };
    if (this.diceSoNice) {
      client.game.dice3d = {
        showForRoll: async (roll, user, synchronize) => {
          world.shown.push({
            by: user.id,
            synchronize,
            formula: roll.formula,
            values: roll.dice.flatMap((die) => die.results.map((result) => result.result)),
            faces: roll.dice.map((die) => die.faces),
            messages: world.messages.length,
          });
          return true;
        },
      };
    }
    const note = (level) => (text) => {
      client.notifications.push({ level, text });
      world.notify();
    };
    if (!this.dialogV2) Object.defineProperty(globalThis, "Dialog", { configurable: true, writable: true, value: this.Dialog(client) });
    Object.assign(globalThis, {
      game: client.game,
      Hooks: client.hooks,
      ui: { notifications: { info: note("info"), warn: note("warn"), error: note("error") } },
      canvas: client.canvas,
      ChatMessage: this.ChatMessage(),
      foundry: {
        ...(this.dialogV2 ? { applications: { api: { DialogV2: this.DialogV2(client) } } } : {}),
        audio: { AudioHelper: { play: (data, socket) => world.sounds.push({ by: client.user.id, src: data.src, socket }) } },
      },
      CONFIG: { sounds: { dice: "sounds/dice.wav" } },
      Roll: this.Roll(client),
    });
    if (this.dialogV2) {
      // Foundry 13 warns of the global Dialog's deprecation whenever it is read.
      const Dialog = this.Dialog(client);
      Object.defineProperty(globalThis, "Dialog", {
        configurable: true,
        get: () => {
          world.deprecatedReads += 1;
          return Dialog;
        },
      });
    }
  }

  /** Runs `fn` with `client`'s globals, then gives the previous client's back. */
  as(client, fn) {
    const before = this.active;
    this.activate(client);
    try {
      return fn();
    } finally {
      if (before) this.activate(before);
    }
  }

  ChatMessage() {
    const world = this;
    return class ChatMessage {
      static async create(data) {
        await Promise.resolve(); // a round trip to the server
        const message = { id: `m${world.messages.length + 1}`, whisper: [], ...structuredClone(data), author: world.active.user.id };
        world.messages.push(message);
        for (const client of world.clients) {
          world.as(client, () => client.hooks.callAll("createChatMessage", message, {}, client.user.id));
          const sees = message.whisper.length === 0 || message.whisper.includes(client.user.id) || client.user.isGM;
          if (!sees) continue;
          const element = new Element(message.content);
          client.rendered.set(message.id, element);
          const hook = world.generation >= 13 ? "renderChatMessageHTML" : "renderChatMessage";
          world.as(client, () => client.hooks.callAll(hook, message, world.generation >= 13 ? element : [element], {}));
        }
        world.notify();
        return message;
      }
    };
  }

  /** v12's Dialog: its buttons an object by name, each callback handed the dialog's jQuery. */
  Dialog(client) {
    const world = this;
    return class Dialog {
      constructor(data, options) {
        this.data = data;
        this.options = options;
        this.client = client;
        this.api = "Dialog";
      }
      render(force) {
        this.rendered = force;
        world.dialogs.push(this);
        world.notify();
        return this;
      }
      get title() {
        return this.data.title;
      }
      get content() {
        return this.data.content;
      }
      get actions() {
        return Object.keys(this.data.buttons);
      }
      /** The form as shown, by name. */
      shown() {
        return Object.fromEntries(new Element(this.content).fields.map((field) => [field.name, field.value]));
      }
      /** Its user fills in `values` and presses `button` (the callback gets v12's jQuery). */
      press(button, values = {}) {
        const element = new Element(this.content, values);
        return world.as(this.client, () => this.data.buttons[button].callback?.([element]));
      }
    };
  }

  /** DialogV2 (v13; v12 from 12.331): `window.title`, `content` it wraps in a form of its own,
   * `buttons` a list of actions, each callback handed (event, button, dialog) where
   * `button.form` is that form; rendered with `render({force: true})`. */
  DialogV2(client) {
    const world = this;
    return class DialogV2 {
      constructor(options) {
        this.options = options;
        this.client = client;
        this.api = "DialogV2";
      }
      async render(options) {
        if (!options?.force) throw new Error("DialogV2.render takes {force: true}");
        world.dialogs.push(this);
        world.notify();
        return this;
      }
      get title() {
        return this.options.window.title;
      }
      get content() {
        return this.options.content;
      }
      get actions() {
        return this.options.buttons.map((button) => button.action);
      }
      shown() {
        return Object.fromEntries(new Element(this.content).fields.map((field) => [field.name, field.value]));
      }
      press(action, values = {}) {
        const form = new Element(this.content, values);
        const button = this.options.buttons.find((one) => one.action === action);
        return world.as(this.client, () => button.callback?.({ type: "click" }, { form, dataset: { action } }, this));
      }
    };
  }

  notify() {
    for (const waiter of [...this.waiters]) {
      const found = waiter.test();
      if (found) {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        waiter.resolve(found);
      }
    }
  }

  /** Resolves with what `test` answers once it answers something (a failsafe ends a hung run). */
  until(what, test) {
    const found = test();
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter = { test, resolve };
      this.waiters.push(waiter);
      setTimeout(() => reject(new Error(`never saw ${what}`)), 30000);
    });
  }

  /** A die of `faces` sides from the seeded generator (mulberry32). */
  face(faces) {
    this.seed = (this.seed + 0x6d2b79f5) | 0;
    let t = this.seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return 1 + Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * faces);
  }

  /** Foundry's Roll in `client`'s browser: `fromData`, and a formula of `NdM` terms evaluated. */
  Roll(client) {
    const world = this;
    return class ClientRoll extends Roll {
      constructor(formula, data = {}, options = {}) {
        super();
        this.formula = formula;
        this.options = options;
        this.dice = String(formula)
          .split("+")
          .map((term) => /^\s*(\d+)d(\d+)\s*$/.exec(term))
          .map((match) => {
            if (!match) throw new Error(`the stand-in rolls NdM terms only: ${formula}`);
            return { class: "Die", number: Number(match[1]), faces: Number(match[2]), results: [] };
          });
        this.terms = this.dice;
        this._evaluated = false;
      }
      async evaluate() {
        if (this._evaluated) throw new Error("a Roll is evaluated once");
        for (const die of this.dice) die.results = Array.from({ length: die.number }, () => ({ result: world.face(die.faces), active: true }));
        this.total = this.dice.reduce((sum, die) => sum + die.results.reduce((one, result) => one + result.result, 0), 0);
        this._evaluated = true;
        world.rolled.push({ by: client.user.id, formula: this.formula, flavor: this.options.flavor ?? null, values: this.dice.flatMap((die) => die.results.map((result) => result.result)) });
        return this;
      }
    };
  }

  /** The first chat message after `after` messages matching `test`. */
  message(what, test, after = 0) {
    return this.until(what, () => this.messages.slice(after).find(test));
  }
}

/** Foundry's Roll, as far as Dice So Nice reads one built with `Roll.fromData`. */
class Roll {
  static fromData(data) {
    if (data.class !== "Roll" || !data.evaluated) throw new Error("not an evaluated Roll's data");
    const roll = new Roll();
    roll.formula = data.formula;
    roll.terms = data.terms;
    roll.total = data.total;
    roll.dice = data.terms.filter((term) => term.class === "Die");
    for (const die of roll.dice) {
      if (die.results.length !== die.number || die.results.some((result) => result.result < 1 || result.result > die.faces)) throw new Error(`a die out of its faces: ${JSON.stringify(die)}`);
    }
    return roll;
  }
}
