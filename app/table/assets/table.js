// The table page: the GM's view and each player's, from the URL's fragment
// (`#session=…&kind=…&token=…&role=gm|seat|party&name=…`), which never reaches a server.
// Everything shown comes from the API's answers and the session's live events; the page
// never holds another seat's dice or another party's sealed choice (the service does not
// send them to this page's token).

import { ApiError, LiveEvents, call } from "./api.js";
import { field, fill, h, refill, uid } from "./dom.js";
import { possessive, t, tn } from "./i18n.js";
import { KINDS, KIND_NAMES } from "./kinds.js";
import { beforeReveal, remember, reportLine, verifyProof, verifyUnrevealed } from "./verify.js";
import { byWords, cardLine, renderBoard, renderOdds, renderChoiceOdds, renderRound } from "./views.js";

const main = document.getElementById("main");
const announcer = document.getElementById("announcer");
const errorBox = document.getElementById("error");
const connection = document.getElementById("connection");

// --- the fragment ------------------------------------------------------------------------

/** The fragment's parts: the session, its kind, this page's token and role, and (for the GM)
 * every seat's and party's token, so that their links survive a reload. */
function readFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const found = { session: params.get("session"), kind: params.get("kind"), token: params.get("token"),
    role: params.get("role") || "gm", name: params.get("name"), seats: {}, parties: {} };
  for (const [key, value] of params) {
    if (key.startsWith("seat.")) found.seats[key.slice(5)] = value;
    if (key.startsWith("party.")) found.parties[key.slice(6)] = value;
  }
  return found;
}

function fragmentOf({ session, kind, token, role, name = null, seats = {}, parties = {} }) {
  const params = new URLSearchParams({ session, kind, token, role });
  if (name) params.set("name", name);
  for (const [seat, value] of Object.entries(seats)) params.set(`seat.${seat}`, value);
  for (const [party, value] of Object.entries(parties)) params.set(`party.${party}`, value);
  return params.toString();
}

function linkFor(parts) {
  return `${location.origin}${location.pathname}#${fragmentOf(parts)}`;
}

// --- what the page shows of a failure and of each result ---------------------------------

/** A refusal in the page's words: each field the service names, said as the player knows
 * it (Lydia's Strength die), what it wants in plain terms. */
export function errorWords(error) {
  // (A message of the page's own, as verify.js's, is in its catalog.)
  if (!(error instanceof ApiError)) return t(String(error && error.message ? error.message : error));
  if (error.status === 404) return t("This session does not exist any more: it was deleted, or the link is wrong.");
  if (error.status === 0) return t("The service cannot be reached: check the connection and try again.");
  const items = error.problem && Array.isArray(error.problem.errors) ? error.problem.errors : [];
  if (items.length === 0) return error.detail;
  return items.map((item) => {
    const loc = (item.loc || []).filter((part) => part !== "body");
    const msg = String(item.msg || "")
      .replace(/^Input should be less than or equal to (\S+)$/, (_, most) => t("at most {most}", { most }))
      .replace(/^Input should be greater than or equal to (\S+)$/, (_, least) => t("at least {least}", { least }))
      .replace(/^Input should be a valid integer.*$/, () => t("a whole number"));
    if (loc[0] === "rolls" && loc.length >= 3) {
      return t("{name}'s {purpose} die: {problem}", { name: loc[1], purpose: loc[2], problem: msg });
    }
    return loc.length ? t("{field}: {problem}", { field: loc.join(" › "), problem: msg }) : msg;
  }).join(" ");
}

function showError(error, near = null) {
  const words = errorWords(error);
  // Beside the control that was used, when there is one: said there, in the page's words.
  const home = near && near.isConnected ? near.closest("form, .actions, .pending") : null;
  if (home) {
    const box = h("p", { class: "field-error", role: "alert" }, h("strong", {}, t("Not done: ")), words);
    home.insertAdjacentElement("afterend", box);
    return;
  }
  fill(errorBox, h("strong", {}, t("Not done: ")), words);
  errorBox.hidden = false;
}

function clearError() {
  errorBox.hidden = true;
  errorBox.replaceChildren();
  for (const shown of document.querySelectorAll(".field-error")) shown.remove();
}

/** Say `text` in the live region (cleared first, so the same words are said again). */
let announced = "";

function announce(text) {
  // The answer to this page's own change and the live event of it say the same words.
  if (!text || text === announced) return;
  announced = text;
  announcer.textContent = "";
  window.setTimeout(() => {
    announcer.textContent = text;
  }, 30);
  const latest = document.getElementById("latest");
  if (latest) latest.textContent = text;
}

/** What an answer or event says happened: a round's card when it carries one (the last of a
 * resolve's), else its summary line. */
function resultWords(body) {
  const rounds = Array.isArray(body.rounds) ? body.rounds : [];
  const played = body.round && typeof body.round === "object" ? body.round : rounds[rounds.length - 1];
  const card = played && Array.isArray(played.cards) ? played.cards[0] : null;
  if (card) return t("Round {number}: {card}", { number: played.number, card: cardLine(card) });
  // A round waiting for dice, in the page's words (the summary line has the deadline in UTC).
  if (body.pending && body.pending.waiting_for) {
    return t("Round {number} waits for dice from {names}.", { number: body.pending.number, names: body.pending.waiting_for.join(", ") });
  }
  return body.summary || "";
}

function setConnection(status, reason = null) {
  connection.hidden = false;
  connection.dataset.state = status;
  const why = reason || t("no connection");
  connection.textContent =
    status === "live" ? t("Live") : status === "ended" ? t("Stream closed")
      : t("Disconnected — reconnecting… ({reason})", { reason: why });
}

/** Run `work` for a button: disabled meanwhile, its error shown, its answer applied. */
async function act(button, work) {
  clearError();
  const label = button ? button.textContent : null;
  if (button) button.disabled = true;
  try {
    const answer = await work();
    if (answer && answer.body) {
      if (answer.body.session) applySession(answer.body.session);
      if (answer.body.round && typeof answer.body.round === "object") keepOwnRound(answer.body.round);
      announce(resultWords(answer.body));
    }
    return answer;
  } catch (error) {
    if (button) button.disabled = false;
    showError(error, button);
    return null;
  } finally {
    if (button) button.disabled = false;
    keepFocus(button, label);
  }
}

/** After an action the keyboard stays where the player is: on the same button when it is
 * still there, else on the first control of the part it was in (never back at the top). */
function keepFocus(button, label) {
  const active = document.activeElement;
  if (active && active !== document.body && active.isConnected) return;
  if (button && button.isConnected) {
    button.focus();
    return;
  }
  const box = document.getElementById("controls");
  const same = box && [...box.querySelectorAll("button")].find((item) => item.textContent === label && !item.disabled);
  const first = box && box.querySelector("input:not([disabled]), select, button:not([disabled])");
  const heading = document.getElementById("act-title");
  const target = same || first || heading;
  if (target) {
    if (target === heading) heading.setAttribute("tabindex", "-1");
    target.focus();
  }
}

// --- starting a session ------------------------------------------------------------------

function startView() {
  const kindSelect = h("select", { name: "kind" }, KIND_NAMES.map((name) => h("option", { value: name }, KINDS[name].title)));
  const presetSelect = h("select", { name: "preset" });
  const optionsBox = h("fieldset", { class: "options" });
  const seats = h("input", { type: "checkbox", name: "seats", checked: true });
  const seatsField = field(t("Give each competitor a seat: a link to send their own dice"), seats);
  const seed = h("input", { type: "number", name: "seed", min: 0, inputmode: "numeric" });
  const verifiable = h("input", { type: "checkbox", name: "verifiable" });
  const body = h("textarea", { name: "body", rows: 12, spellcheck: "false" });
  const createButton = h("button", { type: "submit", class: "primary" }, t("Create the session"));

  function currentBody() {
    try {
      return JSON.parse(body.value);
    } catch {
      throw new Error(t("The request is not valid JSON: fix it, or choose a preset again."));
    }
  }

  function writeBody(value) {
    body.value = JSON.stringify(value, null, 2);
  }

  function applyOptions() {
    let value;
    try {
      value = currentBody();
    } catch (error) {
      showError(error);
      return;
    }
    for (const input of optionsBox.querySelectorAll("[data-key]")) {
      const key = input.dataset.key;
      if (input.type === "checkbox") value[key] = input.checked;
      else if (input.value === "") delete value[key];
      else value[key] = input.type === "number" ? Number(input.value) : input.value;
    }
    const info = KINDS[kindSelect.value];
    if (info.seats && seats.checked) value.seats = true;
    else delete value.seats;
    if (seed.value !== "") value.seed = Number(seed.value);
    else delete value.seed;
    if (verifiable.checked) value.dice = "verifiable";
    else delete value.dice;
    writeBody(value);
  }

  function choosePreset() {
    const info = KINDS[kindSelect.value];
    const preset = structuredClone(info.presets[presetSelect.value]);
    for (const input of optionsBox.querySelectorAll("[data-key]")) {
      const key = input.dataset.key;
      if (input.type === "checkbox") input.checked = key in preset ? Boolean(preset[key]) : input.dataset.default === "true";
      else input.value = key in preset ? String(preset[key]) : "";
    }
    writeBody(preset);
    applyOptions();
  }

  function chooseKind() {
    const info = KINDS[kindSelect.value];
    fill(presetSelect, Object.keys(info.presets).map((name) => h("option", { value: name }, name)));
    fill(
      optionsBox,
      h("legend", {}, t("Rule options")),
      info.options.map((rule) => {
        let input;
        if (rule.type === "select") {
          input = h("select", { dataset: { key: rule.key } }, h("option", { value: "" }, t("(the rules' default)")),
            rule.choices.map((choice) => h("option", { value: choice }, choice)));
        } else if (rule.type === "checkbox") {
          input = h("input", { type: "checkbox", dataset: { key: rule.key, default: String(rule.default) } });
        } else {
          input = h("input", { type: "number", min: rule.min, inputmode: "numeric", dataset: { key: rule.key },
            placeholder: "default" });
        }
        input.addEventListener("change", applyOptions);
        return field(rule.label, input);
      }),
    );
    seatsField.hidden = !info.seats;
    choosePreset();
  }

  kindSelect.addEventListener("change", chooseKind);
  presetSelect.addEventListener("change", choosePreset);
  seats.addEventListener("change", applyOptions);
  seed.addEventListener("change", applyOptions);
  verifiable.addEventListener("change", applyOptions);

  const form = h(
    "form",
    { id: "create-form", novalidate: true },
    field(t("Kind of contest"), kindSelect),
    field(t("Preset"), presetSelect),
    optionsBox,
    seatsField,
    field(t("Verifiable dice: committed before the first roll, checked by anyone at the end"), verifiable,
      t("Each player may add a seed of their own before the first round; not with a seed above.")),
    field(t("Seed (optional: the same seed rolls the same dice)"), seed),
    h("details", {}, h("summary", {}, t("The whole request (JSON): names, stats and every rule option")),
      field(t("Request body"), body, t("Edit freely: the service checks it and says what is wrong."))),
    h("div", { class: "actions" }, createButton),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearError();
    let value;
    try {
      value = currentBody();
    } catch (error) {
      showError(error, createButton);
      return;
    }
    const kind = kindSelect.value;
    const answer = await act(createButton, () => call("POST", `v1/${kind}`, { body: value }));
    if (!answer) return;
    const created = answer.body;
    const tokens = created.tokens;
    location.hash = fragmentOf({ session: created.id, kind, token: tokens.gm, role: "gm",
      seats: tokens.seats || {}, parties: tokens.parties || {} });
  });

  const templates = templatesPanel(
    () => ({ kind: kindSelect.value, body: currentBody() }),
    async (template, button) => {
      const answer = await act(button, () => call("POST", `v1/${template.kind}`, { body: template.body }));
      if (!answer) return;
      const tokens = answer.body.tokens;
      location.hash = fragmentOf({ session: answer.body.id, kind: template.kind, token: tokens.gm, role: "gm",
        seats: tokens.seats || {}, parties: tokens.parties || {} });
    });

  const link = h("input", { type: "url", name: "link", placeholder: "https://…/table#session=…", autocomplete: "off" });
  const open = h(
    "form",
    { id: "open-form" },
    field(t("A table link"), link, t("The GM's link, or a player's.")),
    h("div", { class: "actions" }, h("button", { type: "submit" }, t("Open"))),
  );
  open.addEventListener("submit", (event) => {
    event.preventDefault();
    const at = link.value.indexOf("#");
    if (at < 0) {
      showError(new Error(t("That link has no session in it (the part after #).")));
      return;
    }
    location.hash = link.value.slice(at + 1);
  });

  fill(
    main,
    h("section", { "aria-labelledby": "start-title", class: "panel" }, h("h2", { id: "start-title" }, t("Start a session")), form),
    templates,
    h("section", { "aria-labelledby": "open-title", class: "panel" }, h("h2", { id: "open-title" }, t("Open a session")), open),
  );
  chooseKind();
  document.title = t("Arbiter — the table");
}


// --- templates: a contest saved in this browser, started again in one click ----------------

const TEMPLATES_KEY = "arbiter-templates";

/** A template as kept: its name, kind and creation body, never a token (a creation body
 * has none; any key that could hold one is left out). */
function cleanTemplate(item) {
  if (!item || typeof item !== "object" || typeof item.name !== "string" || !(item.kind in KINDS)) return null;
  if (!item.body || typeof item.body !== "object" || Array.isArray(item.body)) return null;
  const body = JSON.parse(JSON.stringify(item.body, (key, value) => (/token/i.test(key) ? undefined : value)));
  return { name: item.name.slice(0, 80), kind: item.kind, body };
}

function readTemplates() {
  try {
    const kept = JSON.parse(localStorage.getItem(TEMPLATES_KEY) || "[]");
    return Array.isArray(kept) ? kept.map(cleanTemplate).filter(Boolean) : [];
  } catch {
    return [];
  }
}

function writeTemplates(list) {
  try {
    localStorage.setItem(TEMPLATES_KEY, JSON.stringify(list.map(cleanTemplate).filter(Boolean)));
  } catch {
    // storage refused (a private window's quota): the list lives until the page closes
  }
}

function templatesPanel(current, start) {
  const section = h("section", { "aria-labelledby": "templates-title", class: "panel", id: "templates" });
  const name = h("input", { type: "text", name: "template-name", maxlength: 80, autocomplete: "off" });
  const save = h("button", { type: "submit" }, t("Save as a template"));
  const list = h("ul", { class: "templates-list" });
  const exported = h("textarea", { name: "templates-export", rows: 4, readonly: true, spellcheck: "false" });
  const imported = h("textarea", { name: "templates-import", rows: 4, spellcheck: "false" });
  const importButton = h("button", { type: "submit" }, t("Import these templates"));
  const note = h("p", { class: "muted", "aria-live": "polite" });

  function draw() {
    const kept = readTemplates();
    exported.value = JSON.stringify(kept, null, 2);
    fill(list, kept.length ? kept.map((item, index) => {
      const go = h("button", { type: "button", class: "primary" }, t("Start “{name}”", { name: item.name }));
      go.addEventListener("click", () => start(item, go));
      const remove = h("button", { type: "button", class: "secondary" }, t("Delete “{name}”", { name: item.name }));
      remove.addEventListener("click", () => {
        writeTemplates(readTemplates().filter((_, at) => at !== index));
        draw();
        note.textContent = t("Template “{name}” deleted.", { name: item.name });
        (list.querySelector("button") || name).focus();
      });
      return h("li", {}, h("span", {}, `${item.name} (${KINDS[item.kind].title})`), go, remove);
    }) : h("li", { class: "muted" }, t("No template yet: set up a contest above, name it, save it.")));
  }

  const saveForm = h("form", { id: "template-form" }, field(t("Template name"), name), h("div", { class: "actions" }, save));
  saveForm.addEventListener("submit", (event) => {
    event.preventDefault();
    let made;
    try {
      made = cleanTemplate({ name: name.value.trim(), ...current() });
      if (!made || !made.name) throw new Error(t("Name the template first."));
    } catch (error) {
      showError(error, save);
      return;
    }
    writeTemplates([...readTemplates().filter((item) => item.name !== made.name), made]);
    draw();
    note.textContent = t("Template “{name}” saved in this browser.", { name: made.name });
    name.focus();
  });
  const importForm = h("form", { id: "template-import" },
    field(t("Templates to import (JSON, as exported)"), imported), h("div", { class: "actions" }, importButton));
  importForm.addEventListener("submit", (event) => {
    event.preventDefault();
    let items;
    try {
      items = JSON.parse(imported.value);
      if (!Array.isArray(items)) throw new Error();
    } catch {
      showError(new Error(t("That is not a list of templates (JSON, as exported).")), importButton);
      return;
    }
    const good = items.map(cleanTemplate).filter(Boolean);
    const names = new Set(good.map((item) => item.name));
    writeTemplates([...readTemplates().filter((item) => !names.has(item.name)), ...good]);
    draw();
    note.textContent = tn("{count} template imported.", "{count} templates imported.", good.length);
    importButton.focus();
  });
  fill(section, h("h2", { id: "templates-title" }, t("Templates")),
    h("p", {}, t("Save a contest (its kind, options and competitors) to start it again in one click. Kept in this browser only, never with a token.")),
    list, saveForm,
    h("details", {}, h("summary", {}, t("Export or import templates")),
      field(t("These templates (JSON): copy them to another browser"), exported), importForm),
    note);
  draw();
  return section;
}

/** After the view changes, the keyboard starts at its first heading. */
function focusHeading() {
  const heading = main.querySelector("h2");
  if (!heading || document.activeElement === heading) return;
  heading.setAttribute("tabindex", "-1");
  if (document.activeElement && document.activeElement !== document.body && main.contains(document.activeElement)) return;
  heading.focus({ preventScroll: true });
}

// --- a session ---------------------------------------------------------------------------

const view = {
  frag: null,
  info: null,
  session: null,
  rounds: new Map(),
  live: null,
  controlsKey: null,
  sealed: {},
  terrain: { check: "strength" },
  tacticPolicy: "none",
  odds: { running: false, again: false },
  deleted: false,
  proof: { running: false, again: false, latest: null, shownKey: null },
};

function base() {
  return `v1/${view.frag.kind}/${view.frag.session}`;
}

function asMe(method, path, body) {
  return call(method, path, { token: view.frag.token, body });
}

/** A change that only makes sense on the session as this page shows it (a round played with
 * the dice entered, a resolve): refused with a 412 when it has moved on meanwhile, and the
 * page then reads it again. */
async function onWhatIsShown(method, path, body) {
  try {
    return await call(method, path, { token: view.frag.token, body, ifMatch: view.session.version });
  } catch (error) {
    if (error instanceof ApiError && error.status === 412) {
      applySession((await asMe("GET", base())).body);
      loadRounds();
      refreshOdds();
      throw new ApiError(412, t("The session changed meanwhile (the page shows it now): check, then try again."));
    }
    throw error;
  }
}

function isGm() {
  return view.frag.role === "gm";
}

/** Show `session` if it is newer than the one shown. The page's own answers are in its
 * language; a live event's session is the English one every stream reads
 * (`fromEvent`), so it never replaces the same version already shown. */
function applySession(session, fromEvent = false) {
  if (view.session && session.version < view.session.version) return;
  if (fromEvent && view.session && session.version === view.session.version) return;
  const changed = !view.session || session.version !== view.session.version || session.summary !== view.session.summary;
  view.session = session;
  document.body.dataset.version = String(session.version);
  if (session.dice === "verifiable") keepSeen({ shown: session });
  if (changed) render();
}

// --- what this page saw of a verifiable session, kept to check its proof against --------------

function seenKey() {
  return `arbiter-verifiable:${view.frag.kind}:${view.frag.session}`;
}

/** The commitment, each chain head (by rounds played) and this page's seed it was shown. */
function seen() {
  try {
    return JSON.parse(globalThis.sessionStorage.getItem(seenKey()) || "null");
  } catch {
    return view.seenHere || null; // no storage: this visit's alone
  }
}

function keepSeen({ shown = null, mine = null }) {
  const { memory, conflicts } = remember(seen(), shown, { mine, kind: view.frag.kind });
  view.seenHere = memory;
  view.seenConflicts = [...(view.seenConflicts || []), ...conflicts];
  try {
    globalThis.sessionStorage.setItem(seenKey(), JSON.stringify(memory));
  } catch {
    // kept for this visit only (view.seenHere)
  }
}

/** Every round `GET …/rounds` serves this page's token, oldest first. */
async function servedRounds() {
  const served = [];
  for (;;) {
    const page = (await asMe("GET", `${base()}/rounds?after=${served.length}&limit=500`)).body;
    const got = page.rounds || [];
    served.push(...got);
    if (got.length < 500) return served;
  }
}

async function sessionView(frag) {
  view.frag = frag;
  view.info = KINDS[frag.kind];
  view.session = null;
  view.rounds = new Map();
  view.controlsKey = null;
  view.sealed = {};
  view.recalled = new Set();
  view.turnKey = undefined;
  view.deleted = false;
  view.proof = { running: false, again: false, latest: null, shownKey: null };
  view.roundsReading = false;
  view.roundsAgain = false;
  if (!view.info || !frag.session || !frag.token) {
    fill(main, h("section", { class: "panel" }, h("h2", {}, t("This link is incomplete")),
      h("p", {}, t("A table link names its session, its kind and a token. Ask the GM for yours.")),
      h("p", {}, h("a", { href: "#" }, t("Start or open a session")))));
    return;
  }
  const name = frag.name || t("a player");
  const who = isGm() ? t("You are the GM")
    : frag.role === "seat" ? t("You are {name} (your seat)", { name }) : t("You are {name}", { name });
  fill(
    main,
    h("div", { id: "turn", class: "turn-bar", hidden: true }),
    h("section", { class: "panel head", "aria-labelledby": "session-title" },
      h("h2", { id: "session-title" }, view.info.title),
      h("p", { class: "who" }, who),
      h("p", { id: "summary", class: "summary" }),
      h("p", { class: "played" }, h("span", { class: "label" }, t("Rounds played: ")), h("span", { id: "played" }, "—")),
      h("p", { class: "latest-line" }, h("span", { class: "label" }, t("Latest: ")), h("span", { id: "latest" }, "—"))),
    h("section", { id: "dice-panel", class: "panel", "aria-labelledby": "dice-title", hidden: true },
      h("h3", { id: "dice-title" }, t("Verifiable dice")), h("div", { id: "dice-facts" }), h("div", { id: "seeds" }),
      h("div", { class: "actions" }, h("button", { type: "button", id: "check-dice" }, t("Check the dice"))),
      h("p", { id: "check-result", class: "check-result" })),
    h("section", { class: "panel", "aria-labelledby": "board-title" }, h("h3", { id: "board-title" }, t("Where it stands")),
      h("div", { id: "board" })),
    h("section", { class: "panel", "aria-labelledby": "act-title" }, h("h3", { id: "act-title" }, isGm() ? t("Run it") : t("Your part")),
      h("div", { id: "controls" })),
    h("section", { class: "panel", "aria-labelledby": "odds-title" }, h("h3", { id: "odds-title" }, t("Odds")),
      h("div", { id: "odds" }, h("p", { class: "muted" }, t("Computing the odds…"))),
      h("h4", {}, t("Odds at the next choice")), h("div", { id: "choice-odds" })),
    h("section", { class: "panel", "aria-labelledby": "rounds-title" }, h("h3", { id: "rounds-title" }, t("Rounds")),
      h("p", { id: "rounds-count", class: "muted", "aria-live": "off" }),
      h("ol", { id: "rounds", reversed: true })),
    isGm() ? h("section", { class: "panel", "aria-labelledby": "links-title" }, h("h3", { id: "links-title" }, t("Links for the table")),
      h("div", { id: "links" })) : null,
  );
  if (isGm()) renderLinks();
  document.getElementById("check-dice").addEventListener("click", (event) => checkDice(event.currentTarget));
  focusHeading();
  try {
    const answer = await asMe("GET", base());
    applySession(answer.body);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 401 || error.status === 403)) {
      // A bad or deleted link: said so, and nothing else waits (no odds, no rounds).
      fill(main, h("section", { class: "panel" }, h("h2", {}, t("This link does not open a session")),
        h("p", {}, t("The session was deleted, or the link is wrong or incomplete. Ask the GM for a new link.")),
        h("p", {}, h("a", { href: "#" }, t("Start or open a session")))));
      document.title = t("No session — Arbiter");
      focusHeading();
      return;
    }
    showError(error);
    return;
  }
  await loadRounds();
  refreshOdds();
  startEvents();
}

function startEvents() {
  if (view.live) view.live.stop();
  const live = new LiveEvents(`${base()}/events`, view.frag.token, {
    lastEventId: view.session ? String(view.session.version) : "",
    onEvent: (name, data) => onEvent(name, data),
    onState: (status, reason) => setConnection(status, reason),
    onFatal: (error) => {
      setConnection("ended");
      showError(error);
    },
  });
  view.live = live;
  live.start();
}

function onEvent(name, data) {
  if (name === "deleted") {
    view.deleted = true;
    view.session = null;
    setConnection("ended");
    announce(t("The GM deleted this session."));
    window.clearInterval(view.countdownTimer);
    setBadge(false);
    fill(main, h("section", { class: "panel" }, h("h2", {}, t("This session was deleted")),
      h("p", {}, h("a", { href: "#" }, t("Start or open a session")))));
    return;
  }
  // The stream speaks the page's language (its Accept-Language): its session is shown as it is.
  if (data.session) applySession(data.session, true);
  if (name === "pending-cancelled") announce(t("The GM cancelled the round that waited for dice."));
  else if (name !== "session") announce(resultWords(data));
  if (name === "revealed" || name === "round" || name === "ended") view.sealed = {};
  loadRounds();
  refreshOdds();
}

// The browser says when it goes off line: the stream is dropped at once (shown disconnected)
// and read again, from the last event, as soon as it is back.
window.addEventListener("offline", () => {
  if (view.live && !view.live.stopped) {
    setConnection("disconnected", "the browser is off line");
    view.live.drop();
  }
});

window.addEventListener("online", () => {
  if (view.live && !view.live.stopped) view.live.retryNow();
});

/** Read the rounds not shown yet; one read at a time (an event during a read asks again). */
async function loadRounds() {
  if (view.roundsReading) {
    view.roundsAgain = true;
    return;
  }
  view.roundsReading = true;
  try {
    do {
      view.roundsAgain = false;
      await readNewRounds();
    } while (view.roundsAgain && !view.deleted);
  } finally {
    view.roundsReading = false;
  }
}

/** A round this page played, from its own answer: its summary is in the page's language (a
 * round read back or from the live events is the English line as stored), shown in place of
 * the same round if an event listed it first. */
function keepOwnRound(record) {
  if (!view.session || typeof record.number !== "number" || typeof record.summary !== "string") return;
  view.rounds.set(record.number, record);
  showRound(record);
}

/** Show `record` in the list, newest first, wherever its number puts it (in place of the
 * same round already listed). */
function showRound(record) {
  const list = document.getElementById("rounds");
  if (!list) return;
  const same = [...list.children].find((child) => Number(child.dataset.number) === record.number);
  if (same) same.remove();
  const item = renderRound(view.frag.kind, record);
  const older = [...list.children].find((child) => Number(child.dataset.number) < record.number);
  list.insertBefore(item, older || null);
  // The newest round is the card in full; the older ones fold to their one line.
  [...list.children].forEach((child, index) => child.classList.toggle("latest", index === 0));
  const count = document.getElementById("rounds-count");
  if (count) count.textContent = tn("{count} round played", "{count} rounds played", list.children.length);
}

async function readNewRounds() {
  if (!view.session) return;
  let after = 0;
  for (const number of view.rounds.keys()) after = Math.max(after, number);
  try {
    for (;;) {
      const answer = await asMe("GET", `${base()}/rounds?after=${after}&limit=500`);
      const page = answer.body.rounds || [];
      for (const record of page) {
        if (!view.rounds.has(record.number)) {
          view.rounds.set(record.number, record);
          showRound(record);
        }
        after = Math.max(after, record.number);
      }
      if (page.length < 500) break;
    }
    const latest = document.getElementById("latest");
    const newest = view.rounds.get(after);
    const card = newest && Array.isArray(newest.cards) ? newest.cards[0] : null;
    if (latest && !announced && newest) latest.textContent = card ? t("Round {number}: {card}", { number: newest.number, card: cardLine(card) }) : newest.summary;
  } catch (error) {
    if (!view.deleted) showError(error);
  }
}

/** A round waiting past its deadline is played by the next call on the session: make one
 * then, so that every page sees it played without anyone having to act. */
function watchDeadline() {
  window.clearTimeout(view.deadlineTimer);
  const deadline = view.session?.pending?.deadline;
  if (!deadline) return;
  const wait = Math.max(0, new Date(deadline).getTime() - Date.now()) + 1000;
  view.deadlineTimer = window.setTimeout(async () => {
    try {
      applySession((await asMe("GET", base())).body);
    } catch (error) {
      if (!view.deleted) showError(error);
    }
  }, Math.min(wait, 2 ** 31 - 1));
}

function render() {
  const session = view.session;
  if (!session) return;
  watchDeadline();
  renderTurn();
  refill(document.getElementById("summary"), session.summary);
  refill(document.getElementById("played"), String(session.round));
  renderBoard(document.getElementById("board"), view.frag.kind, session, view.frag);
  renderControls();
  renderDiceFacts();
}


// --- whose move it is ------------------------------------------------------------------

/** What this page's player owes now: `{kind: "dice", owes}` for a seat the round waits for,
 * `{kind: "skills" | "choice", party}` for a party still to choose; null when not their move. */
function myMove() {
  const session = view.session;
  if (!session || session.status !== "active" || isGm()) return null;
  const me = view.frag.name;
  if (view.frag.role === "seat") {
    const pending = session.pending;
    if (pending && pending.waiting_for.includes(me)) return { kind: "dice", owes: (pending.owes || {})[me] || [] };
    return null;
  }
  if (view.frag.kind === "skill-games" && myParties().includes(me)) {
    const state = session.state;
    if (state.phase === "skills" && !state.skills_done.includes(me)) return { kind: "skills", party: me };
    if (state.phase === "choices" && !state.submitted.includes(me)) return { kind: "choice", party: me };
  }
  return null;
}

/** The dice a seat owes this round, in words: `Strength d20`, `Constitution d20 (when …)`. */
function owedWords(owes) {
  const labels = Object.fromEntries(view.info.purposes.map((purpose) => [purpose.name, purpose.label]));
  return owes.map((owed) => {
    const label = labels[owed.purpose] || owed.purpose;
    const count = owed.certain > 1 ? ` ×${owed.certain}` : "";
    const when = owed.when || t("the round needs it");
    return owed.certain ? `${label}${count}` : t("{label} (only if {when})", { label, when });
  }).join(", ");
}

/** The tab's icon: the plain one, or the one with a badge while it is this player's move. */
function setBadge(on) {
  const icon = document.querySelector("link[rel=icon]");
  if (icon) icon.setAttribute("href", on ? "table/assets/favicon-turn.svg" : "table/assets/favicon.svg");
}

function renderTurn() {
  const session = view.session;
  const bar = document.getElementById("turn");
  const move = myMove();
  const base = `${view.info.title}: ${session.summary} — Arbiter`;
  document.title = move ? t("Your move — {title}", { title: base }) : base;
  setBadge(Boolean(move));
  if (!bar) return;
  const key = JSON.stringify([move, session.pending?.number ?? null]);
  if (key === view.turnKey) return;
  const was = view.turnKey;
  view.turnKey = key;
  if (!move) {
    bar.hidden = true;
    bar.replaceChildren();
    window.clearInterval(view.countdownTimer);
    return;
  }
  bar.hidden = false;
  const parts = [h("strong", { class: "turn-title" }, t("Your move"))];
  if (move.kind === "dice") {
    const pending = session.pending;
    parts.push(h("span", {}, " ", t("Round {number} waits for your dice", { number: pending.number }),
      move.owes.length ? `: ${owedWords(move.owes)}` : "", "."));
    parts.push(h("span", { id: "countdown", class: "countdown", role: "timer", "aria-live": "off" }, ""));
    const go = h("button", { type: "button", class: "primary" }, t("Enter my dice"));
    go.addEventListener("click", () => document.querySelector("#dice-form input")?.focus());
    const roll = h("button", { type: "button", id: "roll-for-me" }, t("Roll for me"));
    roll.addEventListener("click", () => act(roll, () => asMe("POST", `${base()}/rounds/pending/roll-for`, { names: [view.frag.name] })));
    parts.push(h("span", { class: "actions" }, go, roll));
    startCountdown(pending);
  } else {
    parts.push(h("span", {}, " ", move.kind === "skills" ? t("Choose your party's skills and roll them.") : t("Seal your party's choice.")));
    const go = h("button", { type: "button", class: "primary" }, move.kind === "skills" ? t("Choose skills") : t("Choose"));
    go.addEventListener("click", () => document.querySelector(`#controls [data-party] input, #controls [data-party] select`)?.focus());
    parts.push(h("span", { class: "actions" }, go));
  }
  fill(bar, parts);
  if (was !== undefined && was !== key) announce(t("Your move."));
}

/** The deadline's countdown, from the seconds the service says remain (its clock, not the
 * browser's): asked once per waiting round, then counted down on the page's monotonic clock. */
async function startCountdown(pending) {
  window.clearInterval(view.countdownTimer);
  let left = null;
  try {
    const answer = await asMe("GET", base());
    const fresh = answer.body.pending;
    if (fresh && fresh.number === pending.number && typeof fresh.seconds_left === "number") left = fresh.seconds_left;
  } catch {
    // shown without a countdown
  }
  const box = document.getElementById("countdown");
  if (!box || left === null) return;
  const until = performance.now() + left * 1000;
  const tick = () => {
    const seconds = Math.max(0, Math.round((until - performance.now()) / 1000));
    const minutes = Math.floor(seconds / 60);
    const clock = `${minutes}:${String(seconds % 60).padStart(2, "0")}`;
    box.textContent = " " + t("{clock} left, then the server rolls for you.", { clock });
    if (seconds === 0) window.clearInterval(view.countdownTimer);
  };
  tick();
  view.countdownTimer = window.setInterval(tick, 1000);
}

// --- verifiable dice ---------------------------------------------------------------------

/** Who this page's token is, as the seeds and supplied dice name it. */
function myBy() {
  return isGm() ? "gm" : `${view.frag.role}:${view.frag.name}`;
}

/** A hash in short, the whole of it in its title and in a details element beside it. */
function hashValue(label, value) {
  const full = String(value ?? "");
  return h("div", { class: "hash-line" },
    h("span", { class: "label" }, `${label}: `),
    h("code", { class: "hash", title: full, dataset: { full } }, full ? `${full.slice(0, 12)}…` : "—"),
    h("details", { class: "hash-full" }, h("summary", {}, t("whole value")), h("code", {}, full)));
}

function renderDiceFacts() {
  const session = view.session;
  const panel = document.getElementById("dice-panel");
  if (!panel) return;
  panel.hidden = !session || session.dice !== "verifiable";
  if (panel.hidden) return;
  refill(document.getElementById("dice-facts"),
    h("p", {}, t("The dice are verifiable: the server committed to its seed before the first roll and reveals it when the session ends; every round is chained to the one before.")),
    hashValue("Commitment", session.commitment),
    hashValue("Chain head", session.chain_head));
  refreshProof();
}

/** The proof as it stands (no rounds before the reveal), for the seeds; one read at a time. */
async function refreshProof() {
  if (view.proof.running) {
    view.proof.again = true;
    return;
  }
  view.proof.running = true;
  try {
    do {
      view.proof.again = false;
      try {
        const answer = await asMe("GET", `${base()}/proof?limit=1`);
        view.proof.latest = answer.body;
        renderSeeds(answer.body);
      } catch (error) {
        if (!view.deleted) showError(error);
      }
    } while (view.proof.again && !view.deleted);
  } finally {
    view.proof.running = false;
  }
}

function randomSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function renderSeeds(proof) {
  const box = document.getElementById("seeds");
  if (!box) return;
  const seeds = proof.seeds || [];
  const mine = seeds.find((entry) => entry.by === myBy());
  const key = JSON.stringify([proof.seeds_open, seeds]);
  if (key === view.proof.shownKey) return; // a form being filled stays as it is
  view.proof.shownKey = key;
  const listed = seeds.length
    ? h("ul", { class: "seeds-list" }, seeds.map((entry) => h("li", {}, `${byWords(entry.by)}${entry.by === myBy() ? t(" (you)") : ""}: `,
      h("code", {}, entry.seed))))
    : h("p", { class: "muted" }, t("No seed added."));
  const parts = [h("h4", {}, proof.seeds_open ? t("Seeds added so far") : t("The seeds added")), listed];
  if (proof.seeds_open && !mine) {
    // Another token's seed re-draws the list: what this page's player typed stays.
    const typed = box.querySelector("#seed-form input[name=seed]");
    const input = h("input", { type: "text", name: "seed", value: typed ? typed.value : randomSeed(), maxlength: 256, autocomplete: "off", spellcheck: "false" });
    const button = h("button", { type: "submit" }, t("Add my seed"));
    const form = h("form", { id: "seed-form" },
      field(t("Your seed (any text; a random one is filled in)"), input, t("Added before the first round, it changes every server die: no one, the server included, could have chosen them.")),
      h("div", { class: "actions" }, button));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const seed = input.value;
      const answer = await act(button, () => asMe("POST", `${base()}/seeds`, { seed }));
      if (answer) {
        keepSeen({ mine: { by: myBy(), seed } });
        refreshProof();
      }
    });
    parts.push(form);
  } else if (proof.seeds_open) {
    parts.push(h("p", { class: "muted" }, t("Your seed is in. Seeds close at the first round.")));
  } else {
    parts.push(h("p", { class: "muted" }, t("Seeds are closed: the first change chained them.")));
  }
  fill(box, parts);
}

/** Every page of the proof: its rounds once revealed. */
async function wholeProof() {
  let proof = null;
  let after = 0;
  for (;;) {
    const page = (await asMe("GET", `${base()}/proof?after=${after}&limit=500`)).body;
    if (proof === null) proof = page;
    else proof.rounds.push(...(page.rounds || []));
    const got = page.rounds || [];
    if (!page.revealed || got.length === 0 || proof.rounds.length >= page.rounds_played) return proof;
    after = got[got.length - 1].number;
  }
}

/** Each round listed says whether its dice and link were found to match. */
function markRounds(report) {
  for (const checked of report.rounds) {
    const item = document.querySelector(`#rounds > li[data-number="${checked.number}"]`);
    if (!item) continue;
    item.dataset.checked = checked.ok ? "ok" : "failed";
    const mark = item.querySelector(".round-check") || item.appendChild(h("p", { class: "round-check" }));
    fill(mark, checked.ok ? t("Checked: its server dice and its link match.") : t("Does not match: see “Check the dice” above."));
  }
}

async function checkDice(button) {
  const result = document.getElementById("check-result");
  clearError();
  button.disabled = true;
  fill(result, t("Checking the dice…"));
  delete result.dataset.state;
  try {
    const proof = await wholeProof();
    // Checked against what this page was shown before (its heads, the commitment, its seed):
    // a chain rebuilt since fails at the first head that differs.
    const expected = { ...(seen() || {}), config: view.session ? view.session.config : null };
    const conflicts = view.seenConflicts || [];
    let line;
    if (!proof.revealed) {
      const report = await verifyUnrevealed(proof, { expected });
      report.problems.push(...conflicts);
      report.ok = report.problems.length === 0;
      line = beforeReveal(proof, report, t);
      result.dataset.state = report.ok ? "waiting" : "failed";
    } else {
      const report = await verifyProof(proof, { expected, served: await servedRounds() });
      report.problems.push(...conflicts);
      report.ok = report.problems.length === 0;
      line = reportLine(report, t);
      result.dataset.state = report.ok ? "ok" : "failed";
      markRounds(report);
    }
    fill(result, line);
    announce(line);
  } catch (error) {
    fill(result, "");
    showError(error);
  } finally {
    button.disabled = false;
  }
}

// --- odds --------------------------------------------------------------------------------

async function refreshOdds() {
  if (view.odds.running) {
    view.odds.again = true;
    return;
  }
  view.odds.running = true;
  // What the page says of its odds, for whoever waits on them (a test, an extension): `data-odds`
  // "loading" while it asks, "shown" once it has answered; `data-odds-for` the version of the
  // session its odds are of (`data-version`: the one shown). A question may take seconds.
  document.body.dataset.odds = "loading";
  try {
    do {
      view.odds.again = false;
      const version = view.session?.version;
      await loadOdds();
      if (version !== undefined) document.body.dataset.oddsFor = String(version);
    } while (view.odds.again && !view.deleted);
  } finally {
    view.odds.running = false;
    document.body.dataset.odds = "shown";
    document.dispatchEvent(new CustomEvent("arbiter:odds", { detail: { version: document.body.dataset.oddsFor } }));
  }
}

async function loadOdds() {
  const session = view.session;
  const box = document.getElementById("odds");
  const choiceBox = document.getElementById("choice-odds");
  if (!session || !box) return;
  const kind = view.frag.kind;
  if (kind === "skill-games") {
    fill(box, h("p", {}, t("A skill game's sealed bids have no odds: what a bid wins depends on the other parties' sealed choices. "),
      t("The odds of each party's skills are below.")));
    await loadSkillOdds(choiceBox);
    return;
  }
  box.setAttribute("aria-busy", "true");
  box.dataset.updating = "true";
  let path = `${base()}/odds`;
  if (kind === "chases") {
    const query = new URLSearchParams({ terrain: JSON.stringify(view.terrain), tactic_policy: view.tacticPolicy });
    if (session.status !== "active") query.delete("tactic_policy");
    path += `?${query}`;
  }
  try {
    const answer = await asMe("GET", path);
    renderOdds(box, kind, session, answer.body);
  } catch (error) {
    fill(box, h("p", { class: "problem" }, t("The odds are not available: {reason}", { reason: errorWords(error) })));
  } finally {
    box.removeAttribute("aria-busy");
    delete box.dataset.updating;
  }
  if (kind === "chases") await loadChaseChoices(choiceBox);
  else if (kind === "races") await loadRaceChoices(choiceBox);
  else fill(choiceBox, h("p", { class: "muted" }, t("{kind}s have no choice to make between rounds: a round takes only dice.", { kind: view.info.title })));
}

async function loadChaseChoices(box) {
  const session = view.session;
  if (session.status !== "active") {
    fill(box, h("p", { class: "muted" }, t("The chase is over.")));
    return;
  }
  const terrain = view.terrain;
  let options = [
    { label: "just run", move: { terrain } },
    { label: "a hazard (penalty 2)", move: { terrain, tactic: { kind: "hazard", penalty: 2 } } },
    { label: "a hazard (penalty 4)", move: { terrain, tactic: { kind: "hazard", penalty: 4 } } },
  ];
  // A hide needs a lead of 20 (docs/rules.md#chases): not asked before then.
  if (session.state.lead >= HIDE_MIN_LEAD) options.push({ label: "hide", move: { terrain, tactic: { kind: "hide" } } });
  // An option the next increment would refuse (a hide at a lead under 20) is left out.
  for (let attempt = 0; attempt < options.length; attempt += 1) {
    try {
      const answer = await asMe("POST", `${base()}/odds/choices`, { options, tactic_policy: view.tacticPolicy });
      renderChoiceOdds(box, "chases", answer.body);
      return;
    } catch (error) {
      const refused = error.problem?.errors?.map((item) => item.loc?.[2]).filter((index) => typeof index === "number") || [];
      if (error.status !== 422 || refused.length === 0) {
        fill(box, h("p", { class: "problem" }, t("Not available: {reason}", { reason: errorWords(error) })));
        return;
      }
      options = options.filter((_, index) => !refused.includes(index));
      if (options.length === 0) break;
    }
  }
  fill(box, h("p", { class: "muted" }, t("No choice is open on this increment.")));
}

const PACINGS = [["sprint", "sprint"], ["pace", "pace yourself"], ["normal", "a normal pace"]];

/** Before a race's first increment: each racer this page races for (the GM: every racer, up to
 * five) sees her chances at each pacing, and may race at one of them. */
async function loadRaceChoices(box) {
  const session = view.session;
  if (session.status !== "active" || session.state.increment > 0) {
    fill(box, h("p", { class: "muted" }, t("Pacing is chosen for the whole race, before its first increment.")));
    return;
  }
  const racers = session.config.competitors.map((racer) => racer.name);
  const mine = isGm() ? racers.slice(0, 5) : racers.filter((name) => name === view.frag.name);
  if (mine.length === 0) {
    fill(box, h("p", { class: "muted" }, t("Each racer chooses her pacing before the first increment.")));
    return;
  }
  const options = mine.flatMap((name) => PACINGS.map(([pacing, words]) => ({ label: `${name}: ${words}`, move: { name, pacing } })));
  try {
    const answer = await asMe("POST", `${base()}/odds/choices`, { options });
    const rows = answer.body.options.map((option) => {
      const { name, pacing } = option.move;
      const chosen = session.state.pacing[name] === pacing;
      const button = h("button", { type: "button", disabled: chosen }, chosen ? t("Chosen") : t("Race at this pacing"));
      button.addEventListener("click", () => act(button, () => onWhatIsShown("POST", `${base()}/pacing`, { name, pacing })));
      return h("tr", { class: option.label === answer.body.best ? "best" : "" },
        h("th", { scope: "row" }, option.label), h("td", { class: "num" }, `${(option.odds.wins[name] * 100).toFixed(1)}%`), h("td", {}, button));
    });
    fill(box, h("p", {}, answer.body.summary),
      h("table", { class: "odds-table", id: "pacing-odds" }, h("caption", {}, t("Chances of winning, by pacing (an estimate)")),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Pacing")), h("th", { scope: "col" }, t("Wins")), h("th", { scope: "col" }, ""))),
        h("tbody", {}, rows)));
  } catch (error) {
    fill(box, h("p", { class: "problem" }, t("Not available: {reason}", { reason: errorWords(error) })));
  }
}

function combinations(items, size) {
  if (size === 0) return [[]];
  const found = [];
  items.forEach((item, index) => {
    for (const rest of combinations(items.slice(index + 1), size - 1)) found.push([item, ...rest]);
  });
  return found;
}

/** The parties this page may choose skills or seal a choice for. */
function myParties() {
  const parties = view.session.config.parties;
  if (isGm()) return parties.filter((party) => party.controller === "gm").map((party) => party.name);
  // A GM-run party's choices are the GM's to seal: its own link only follows along.
  return parties.filter((party) => view.frag.role === "party" && party.name === view.frag.name && party.controller === "players")
    .map((party) => party.name);
}

async function loadSkillOdds(box) {
  const session = view.session;
  const state = session.state;
  const parties = isGm() ? session.config.parties.map((party) => party.name) : myParties();
  const open = parties.filter((party) => !state.skills_done.includes(party));
  if (session.status !== "active" || state.phase !== "skills" || open.length === 0) {
    fill(box, h("p", { class: "muted" }, state.phase === "choices" && session.status === "active" ? t("Every party has rolled its skills; the choices are sealed now.") : t("No skills to choose now.")));
    return;
  }
  const sets = combinations(session.config.skill_list, session.config.skills_per_round).slice(0, 16);
  const parts = [];
  for (const party of open) {
    try {
      const options = sets.map((skills) => ({ label: skills.join(" + "), move: { party, skills } }));
      const answer = await asMe("POST", `${base()}/odds/choices`, { options });
      parts.push(h("div", { class: "party-odds" }, h("h5", {}, party), renderChoiceOdds(h("div"), "skill-games", answer.body)));
    } catch (error) {
      parts.push(h("p", { class: "problem" }, `${party}: ${error.detail || error}`));
    }
  }
  fill(box, parts);
}

// --- controls ----------------------------------------------------------------------------

function controlsKey() {
  const session = view.session;
  const state = session.state;
  return JSON.stringify([session.status, session.pending || null, state.phase, state.skills_done, state.submitted,
    state.round, state.tokens, view.sealed]);
}

/** The step the controls are for: a re-render within it (another party's or player's move)
 * keeps what this page's user has entered; a new round, phase or pending round does not. */
function controlsStep() {
  const session = view.session;
  const state = session.state;
  return JSON.stringify([session.status, session.round, state.round, state.phase, session.pending?.number ?? null]);
}

/** A form field's identity across renders: its form, its party's panel, and what it is for. */
function fieldKey(element) {
  const form = element.closest("form");
  const panel = element.closest("[data-party]");
  const choice = element.type === "checkbox" || element.type === "radio" ? element.value : "";
  return JSON.stringify([form?.id || form?.className || "", panel?.dataset.party ?? "", element.tagName,
    element.type, element.name, choice, { ...element.dataset }]);
}

/** `box`'s fields with their `fieldKey`s, the same key's second and later ones numbered (the
 * same structure renders them in the same order). */
function keyedFields(box) {
  const seen = new Map();
  return [...box.querySelectorAll("input, select, textarea, details")].map((element) => {
    const key = fieldKey(element);
    const count = seen.get(key) ?? 0;
    seen.set(key, count + 1);
    return [`${key}#${count}`, element];
  });
}

/** What the user has entered in `box` (ticks, text, choices, opened drawers), by field. */
function enteredFields(box) {
  const entered = new Map();
  for (const [key, element] of keyedFields(box)) {
    if (element.tagName === "DETAILS") entered.set(key, { open: element.open });
    else if (element.type === "checkbox" || element.type === "radio") entered.set(key, { checked: element.checked });
    else entered.set(key, { value: element.value });
  }
  return entered;
}

/** Put back into `box`'s new fields what `entered` held for the same fields, telling each
 * field's listeners (a cost shown beside the ticks) as the user's own change would. */
function restoreFields(box, entered) {
  for (const [key, element] of keyedFields(box)) {
    const was = entered.get(key);
    if (!was) continue;
    if ("open" in was) {
      element.open = was.open;
    } else if ("checked" in was) {
      if (element.checked === was.checked) continue;
      element.checked = was.checked;
      element.dispatchEvent(new Event("change", { bubbles: true }));
    } else if (element.value !== was.value) {
      element.value = was.value;
      element.dispatchEvent(new Event("input", { bubbles: true }));
      element.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }
}

function renderControls() {
  const box = document.getElementById("controls");
  if (!box) return;
  const key = controlsKey();
  if (key === view.controlsKey) return;
  view.controlsKey = key;
  const step = controlsStep();
  const entered = step === view.controlsStep ? enteredFields(box) : null;
  view.controlsStep = step;
  const session = view.session;
  const parts = [];
  if (session.status !== "active") {
    parts.push(h("p", { class: "done" }, t("This contest is over.")));
  } else if (view.frag.kind === "skill-games") {
    parts.push(...skillControls());
  } else if (isGm()) {
    parts.push(...gmRoundControls());
  } else {
    parts.push(...playerRoundControls());
  }
  if (isGm()) parts.push(dangerControls());
  const active = document.activeElement;
  const focused = entered && active && box.contains(active) ? keyedFields(box).find(([, element]) => element === active)?.[0] : null;
  // Where the caret was in a text field (a number field has none to read or set).
  const caret = focused && typeof active.selectionStart === "number"
    ? [active.selectionStart, active.selectionEnd, active.selectionDirection] : null;
  fill(box, parts);
  if (entered) {
    restoreFields(box, entered);
    const again = focused && keyedFields(box).find(([key]) => key === focused)?.[1];
    if (again && again.tagName !== "DETAILS") {
      again.focus();
      if (caret && typeof again.selectionStart === "number") again.setSelectionRange(...caret);
    }
  }
}

/** Inputs for one competitor's dice: the main purposes shown, the others folded away. */
function diceInputs(name, fieldsetLabel = name) {
  const purposes = view.info.purposes;
  // A d20 takes 1 to 20 and says so itself; a list of dice takes whole numbers apart.
  const input = (purpose) =>
    field(`${purpose.label}`, purpose.list
      ? h("input", { type: "text", inputmode: "numeric", autocomplete: "off", pattern: "[0-9 ,]*",
        dataset: { who: name, purpose: purpose.name, list: "true", sides: purpose.sides || "", count: purpose.count || "" }, placeholder: t("e.g. 3 4 5"), size: 6 })
      : h("input", { type: "number", min: 1, max: 20, step: 1, inputmode: "numeric", autocomplete: "off",
        dataset: { who: name, purpose: purpose.name, list: "false", sides: "20" }, placeholder: "1–20" }));
  const others = purposes.filter((purpose) => !purpose.main);
  return h("fieldset", { class: "dice" }, h("legend", {}, fieldsetLabel),
    purposes.filter((purpose) => purpose.main).map(input),
    others.length ? h("details", {}, h("summary", {}, t("More dice")), others.map(input)) : null);
}

/** The dice entered in `form`: `{name: {purpose: value or [values]}}`, or an error. */
function enteredDice(form) {
  const rolls = {};
  for (const input of form.querySelectorAll("input[data-purpose]")) {
    const text = input.value.trim();
    if (text === "") continue;
    const values = text.split(/[\s,]+/).map(Number);
    const who = input.dataset.who;
    const label = input.labels && input.labels[0] ? input.labels[0].textContent : input.dataset.purpose;
    if (values.some((value) => !Number.isInteger(value))) {
      input.focus();
      throw new Error(t("{name}'s {die}: write whole numbers, e.g. 17 or 3 4 5.", { name: who, die: label }));
    }
    const sides = Number(input.dataset.sides || 0);
    if (sides && values.some((value) => value < 1 || value > sides)) {
      input.focus();
      throw new Error(t("{name}'s {die}: a die of {sides} sides shows 1 to {sides}.", { name: who, die: label, sides }));
    }
    if (input.dataset.count && values.length !== Number(input.dataset.count)) {
      input.focus();
      throw new Error(t("{name}'s {die}: {count} dice, one number each.", { name: who, die: label, count: input.dataset.count }));
    }
    rolls[input.dataset.who] ??= {};
    rolls[input.dataset.who][input.dataset.purpose] = input.dataset.list === "true" || values.length > 1 ? values : values[0];
  }
  return rolls;
}

/** The lead a chase's escapee needs to hide (app/rules/chases.py `HIDE_MIN_LEAD`). */
const HIDE_MIN_LEAD = 20;

function terrainInputs() {
  const check = h("input", { type: "text", list: "checks", value: view.terrain.check, name: "terrain-check", autocomplete: "off" });
  const list = h("datalist", { id: "checks" }, ["strength", "dexterity", "swim", "climb", "jump", "balance", "ride"].map((name) => h("option", { value: name })));
  const canHide = (view.session?.state?.lead ?? 0) >= HIDE_MIN_LEAD;
  const tactic = h("select", { name: "tactic" }, h("option", { value: "" }, t("no tactic")),
    canHide ? h("option", { value: "hide" }, t("the escapee hides")) : null,
    h("option", { value: "hazard" }, t("the escapee makes a hazard")));
  const penalty = h("input", { type: "number", name: "penalty", min: 1, value: 2, inputmode: "numeric" });
  const policy = h("select", { name: "policy" }, h("option", { value: "none" }, t("never hides")), h("option", { value: "hide-when-possible" }, t("hides when possible")));
  policy.value = view.tacticPolicy;
  check.addEventListener("change", () => {
    view.terrain = { check: check.value.trim() || "strength" };
    refreshOdds();
  });
  policy.addEventListener("change", () => {
    view.tacticPolicy = policy.value;
    refreshOdds();
  });
  return h("fieldset", { class: "terrain" }, h("legend", {}, t("This increment")), field(t("Terrain check"), check), list,
    field(t("Tactic"), tactic), field(t("Hazard penalty"), penalty), field(t("In the odds and a resolve, the escapee"), policy));
}

function roundBody(form) {
  const body = {};
  if (view.frag.kind === "chases") {
    body.terrain = { ...view.terrain };
    const tactic = form.querySelector("[name=tactic]")?.value;
    if (tactic === "hide") body.tactic = { kind: "hide" };
    if (tactic === "hazard") body.tactic = { kind: "hazard", penalty: Number(form.querySelector("[name=penalty]").value) };
  }
  return body;
}

function gmRoundControls() {
  const session = view.session;
  const names = view.info.names(session);
  const parts = [];
  const pending = session.pending;
  if (pending) {
    const waiting = pending.waiting_for;
    parts.push(h("div", { class: "pending", id: "pending" },
      h("p", {}, pending.deadline
        ? t("Round {number} waits for dice from {names} (until {time}).", { number: pending.number, names: waiting.join(", "), time: new Date(pending.deadline).toLocaleTimeString() })
        : t("Round {number} waits for dice from {names}.", { number: pending.number, names: waiting.join(", ") })),
      h("div", { class: "actions" }, waiting.map((name) => {
        const button = h("button", { type: "button" }, t("Roll for {name}", { name }));
        button.addEventListener("click", () => act(button, () => asMe("POST", `${base()}/rounds/pending/roll-for`, { names: [name] })));
        return button;
      }), (() => {
        const cancel = h("button", { type: "button", class: "secondary" }, t("Cancel this round"));
        cancel.addEventListener("click", () => act(cancel, () => asMe("DELETE", `${base()}/rounds/pending`)));
        return cancel;
      })())));
    // A player who rolled at the table but cannot send their dice: the GM enters them.
    const give = h("button", { type: "submit" }, t("Send these dice"));
    const form = h("form", { id: "gm-dice-form", novalidate: true },
      h("details", {}, h("summary", {}, t("Enter a player's dice for them")),
        h("div", { class: "dice-grid" }, waiting.map((name) => diceInputs(name))),
        h("div", { class: "actions" }, give)));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      act(give, () => {
        const rolls = enteredDice(form);
        if (Object.keys(rolls).length === 0) throw new Error(t("Enter the dice first."));
        return asMe("POST", `${base()}/rounds/pending/dice`, { rolls });
      });
    });
    parts.push(form);
    return parts;
  }
  const play = h("button", { type: "submit", class: "primary" }, t("Play the round"));
  const form = h("form", { id: "play-form", novalidate: true },
    view.frag.kind === "chases" ? terrainInputs() : null,
    h("p", { class: "hint" }, t("Enter the dice rolled at the table, or leave them blank for the server to roll.")),
    h("div", { class: "dice-grid" }, names.map((name) => diceInputs(name))),
    h("div", { class: "actions" }, play));
  // Enter in an empty die field does not play the round with the server's dice: it says how.
  form.addEventListener("keydown", (event) => {
    const target = event.target;
    if (event.key === "Enter" && target instanceof HTMLInputElement && target.dataset.purpose && target.value.trim() === "") {
      event.preventDefault();
      showError(new Error(t("Type the die rolled at the table, or press “Play the round” for the server's dice.")), target);
    }
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    act(play, async () => {
      const body = roundBody(form);
      const rolls = enteredDice(form);
      if (Object.keys(rolls).length) body.rolls = rolls;
      const answer = await onWhatIsShown("POST", `${base()}/rounds`, body);
      for (const input of form.querySelectorAll("input[data-purpose]")) input.value = "";
      return answer;
    });
  });
  parts.push(form);
  if (Object.keys(view.frag.seats).length > 0) {
    const deadline = h("input", { type: "number", name: "deadline", min: 1, max: 604800, value: 600, inputmode: "numeric" });
    const collect = h("button", { type: "submit" }, t("Wait for the players' dice"));
    const collectForm = h("form", { id: "collect-form" },
      field(t("Seconds they have (then the server rolls)"), deadline), h("div", { class: "actions" }, collect));
    collectForm.addEventListener("submit", (event) => {
      event.preventDefault();
      act(collect, () => asMe("POST", `${base()}/rounds`, { ...roundBody(form), collect: true, deadline_seconds: Number(deadline.value) }));
    });
    parts.push(collectForm);
  }
  const resolve = h("button", { type: "button" }, t("Play to the end"));
  const sure = h("button", { type: "button", class: "danger", hidden: true }, t("Yes, play every round to the end"));
  const notNow = h("button", { type: "button", hidden: true }, t("Not now"));
  // Irreversible: every round to the end with the server's dice, so it asks first.
  resolve.addEventListener("click", () => {
    resolve.hidden = true;
    sure.hidden = false;
    notNow.hidden = false;
    sure.focus();
  });
  notNow.addEventListener("click", () => {
    resolve.hidden = false;
    sure.hidden = true;
    notNow.hidden = true;
    resolve.focus();
  });
  sure.addEventListener("click", () => act(sure, () => {
    const body = view.frag.kind === "chases" ? { terrain: view.terrain, tactic_policy: view.tacticPolicy } : undefined;
    return onWhatIsShown("POST", `${base()}/resolve`, body);
  }));
  const more = [resolve, sure, notNow];
  if (view.frag.kind === "chases") {
    more.push(...confirming(t("The chaser gives up"), t("Yes, the chaser gives up"),
      (button) => act(button, () => asMe("POST", `${base()}/end`, { reason: "gave-up" }))));
  }
  parts.push(h("div", { class: "actions" }, more));
  return parts;
}

function playerRoundControls() {
  const session = view.session;
  const me = view.frag.name;
  const pending = session.pending;
  if (view.frag.role !== "seat") {
    return [h("p", {}, t("You follow along here: the GM plays the rounds."))];
  }
  if (!pending) return [h("p", { class: "waiting" }, t("Waiting for the GM to start a round."))];
  if (!pending.waiting_for.includes(me)) {
    return [h("p", { class: "waiting" }, t("Your dice are in. Waiting for {names}.", { names: pending.waiting_for.join(", ") }))];
  }
  const send = h("button", { type: "submit", class: "primary" }, t("Send my dice"));
  const rollForMe = h("button", { type: "button" }, t("Roll for me"));
  rollForMe.addEventListener("click", () => act(rollForMe, () => asMe("POST", `${base()}/rounds/pending/roll-for`, { names: [me] })));
  const owes = (pending.owes || {})[me] || [];
  const form = h("form", { id: "dice-form", novalidate: true },
    h("p", {}, t("Round {number} waits for your dice.", { number: pending.number })),
    owes.length ? h("p", { class: "owes" }, t("You owe: {dice}.", { dice: owedWords(owes) })) : null,
    diceInputs(me, t("Your dice, {name}", { name: me })),
    h("div", { class: "actions" }, send, rollForMe));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    act(send, () => {
      const rolls = enteredDice(form);
      if (!rolls[me] || Object.keys(rolls[me]).length === 0) throw new Error(t("Enter your dice first."));
      return asMe("POST", `${base()}/rounds/pending/dice`, { rolls: { [me]: rolls[me] } });
    });
  });
  return [form];
}

function skillControls() {
  const session = view.session;
  const state = session.state;
  const config = session.config;
  const parts = [h("p", {}, state.phase === "skills" ? t("Round {round}: each party chooses its skills.", { round: state.round })
    : t("Round {round}: each party seals its choice.", { round: state.round }))];
  const mine = myParties();
  if (mine.length === 0 && !isGm()) parts.push(h("p", {}, t("You follow along here.")));
  for (const party of mine) {
    const panel = h("div", { class: "party-panel", dataset: { party } }, h("h4", {}, party));
    if (state.phase === "skills") {
      if (state.skills_done.includes(party)) {
        panel.append(h("p", { class: "waiting" }, t("Skills rolled. Waiting for the other parties.")));
      } else {
        const boxes = config.skill_list.map((skill) => h("input", { type: "checkbox", name: "skill", value: skill }));
        const roll = h("button", { type: "submit", class: "primary" }, t("Roll these skills"));
        const members = config.parties.find((item) => item.name === party).members;
        const dice = members.map((member) => h("fieldset", { class: "dice" }, h("legend", {}, member.name),
          config.skill_list.map((skill) => field(`${skill} d20`, h("input", { type: "text", inputmode: "numeric", autocomplete: "off",
            size: 4, placeholder: "1–20", dataset: { member: member.name, skill } })))));
        const form = h("form", { class: "skills-form", novalidate: true },
          h("fieldset", {}, h("legend", {}, tn("Choose {count} skill", "Choose {count} skills", config.skills_per_round)), boxes.map((box, index) => field(config.skill_list[index], box))),
          h("details", {}, h("summary", {}, t("Dice rolled at the table (blank: the server rolls)")), h("div", { class: "dice-grid" }, dice)),
          h("div", { class: "actions" }, roll));
        form.addEventListener("submit", (event) => {
          event.preventDefault();
          const skills = boxes.filter((box) => box.checked).map((box) => box.value);
          act(roll, () => {
            const rolls = {};
            for (const input of form.querySelectorAll("input[data-member]")) {
              const text = input.value.trim();
              if (text === "" || !skills.includes(input.dataset.skill)) continue;
              const value = Number(text);
              if (!Number.isInteger(value) || value < 1 || value > 20) throw new Error(t("{member}'s {skill}: write a whole number, 1 to 20.", { member: input.dataset.member, skill: input.dataset.skill }));
              rolls[input.dataset.member] ??= {};
              rolls[input.dataset.member][input.dataset.skill] = value;
            }
            const body = { party, skills };
            if (Object.keys(rolls).length) body.rolls = rolls;
            return asMe("POST", `${base()}/skills`, body);
          });
        });
        panel.append(form);
      }
    } else {
      const sealed = view.sealed[party];
      if (sealed) {
        panel.append(h("p", { class: "sealed" }, t("Your sealed choice: {choice}. Hidden from the other parties until the reveal; you may replace it until then.", { choice: sealed })));
      } else if (state.submitted.includes(party)) {
        panel.append(h("p", { class: "sealed" }, t("A choice is sealed for this party. You may replace it until the reveal.")));
        recallSealed(party);
      }
      panel.append(choiceForm(party));
    }
    parts.push(panel);
  }
  if (isGm()) {
    const others = config.parties.filter((party) => party.controller !== "gm").map((party) => party.name);
    if (others.length) {
      parts.push(h("p", { class: "muted" }, t("The players choose for {parties} from their own links.", { parties: others.join(", ") })));
    }
    parts.push(grantForm());
  }
  return parts;
}

/** A sealed choice this page no longer holds (a reload): read back with this page's own token,
 * which the service answers for its own party alone (and the GM's for a GM-run party). */
async function recallSealed(party) {
  const key = `${view.session.state.round}:${party}`;
  view.recalled ??= new Set();
  if (view.recalled.has(key)) return;
  view.recalled.add(key);
  try {
    const answer = await asMe("GET", `${base()}/choices/${encodeURIComponent(party)}`);
    const choice = answer.body.choice;
    if (!choice || answer.body.round !== view.session.state.round || view.sealed[party]) return;
    const words = choice.actions ? (choice.actions.length ? choice.actions.join(", ") : t("nothing"))
      : t("{action}, bid {bid}", { action: choice.action, bid: choice.bid });
    view.sealed = { ...view.sealed, [party]: words };
    view.controlsKey = null;
    renderControls();
  } catch {
    // shown as sealed, without what
  }
}

function choiceForm(party) {
  const session = view.session;
  const config = session.config;
  const seal = h("button", { type: "submit", class: "primary" }, t("Seal the choice"));
  let form;
  if (config.kind === "bidding") {
    const action = h("select", { name: "action" }, config.actions.map((item) => h("option", { value: item.name }, actionWords(item))));
    const bid = h("input", { type: "number", name: "bid", min: 0, max: session.state.tokens[party], value: 0, inputmode: "numeric" });
    form = h("form", { class: "choice-form" }, field(t("Action"), action), field(t("Bid (tokens: {tokens})", { tokens: session.state.tokens[party] }), bid),
      h("div", { class: "actions" }, seal));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      act(seal, async () => {
        const answer = await asMe("POST", `${base()}/choices`, { party, action: action.value, bid: Number(bid.value) });
        if (answer.status === 202) {
          view.sealed = { ...view.sealed, [party]: `${action.value}, bid ${bid.value}` };
          view.controlsKey = null;
          renderControls();
        }
        return answer;
      });
    });
  } else {
    const boxes = config.actions.map((item) => h("input", { type: "checkbox", name: "action", value: item.name }));
    form = h("form", { class: "choice-form" },
      h("fieldset", {}, h("legend", {}, t("Actions to buy (tokens: {tokens})", { tokens: session.state.tokens[party] })),
        boxes.map((box, index) => field(`${t("{name} (cost {cost})", { name: config.actions[index].name, cost: config.actions[index].cost ?? 0 })}: ${effectsWords(config.actions[index])}`, box))),
      h("div", { class: "actions" }, seal));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      act(seal, async () => {
        const actions = boxes.filter((box) => box.checked).map((box) => box.value);
        const answer = await asMe("POST", `${base()}/choices`, { party, actions });
        if (answer.status === 202) {
          view.sealed = { ...view.sealed, [party]: actions.length ? actions.join(", ") : "nothing" };
          view.controlsKey = null;
          renderControls();
        }
        return answer;
      });
    });
  }
  return form;
}

/** What an action does, in words: each effect (from its margin, in a bidding game). */
function effectsWords(action) {
  return (action.effects || []).map((effect) => {
    const gains = [effect.progress ? tn("+{count} progress", "+{count} progress", effect.progress) : null,
      effect.tokens ? tn("+{count} token", "+{count} tokens", effect.tokens) : null].filter(Boolean).join(", ");
    const from = effect.min_margin ? t("margin {margin}+: ", { margin: effect.min_margin }) : "";
    const whom = effect.target && effect.target !== "self" ? t(" (to {target})", { target: effect.target }) : "";
    return `${from}${effect.text}${gains ? ` (${gains})` : ""}${whom}`;
  }).join("; ");
}

function actionWords(action) {
  return t("{name} — {effects}", { name: action.name, effects: effectsWords(action) });
}

function grantForm() {
  const config = view.session.config;
  const party = h("select", { name: "party" }, config.parties.map((item) => h("option", { value: item.name }, item.name)));
  const tokens = h("input", { type: "number", name: "tokens", min: 1, value: 1, inputmode: "numeric" });
  const reason = h("input", { type: "text", name: "reason", value: "A fine idea", maxlength: 200 });
  const grant = h("button", { type: "submit" }, t("Grant tokens"));
  const form = h("form", { id: "grant-form" }, h("fieldset", {}, h("legend", {}, t("Grant tokens")),
    field(t("Party"), party), field(t("Tokens"), tokens), field(t("Reason"), reason)), h("div", { class: "actions" }, grant));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    act(grant, () => asMe("POST", `${base()}/grants`, { party: party.value, tokens: Number(tokens.value), reason: reason.value }));
  });
  return h("div", {}, form, h("div", { class: "actions" },
    confirming(t("End the game"), t("Yes, end the game for everyone"), (button) => act(button, () => asMe("POST", `${base()}/end`, {})))));
}

/** An irreversible action behind a second press: `[ask, yes, no]` buttons, the keyboard
 * taken to the confirmation and back. */
function confirming(label, yesLabel, run) {
  const ask = h("button", { type: "button", class: "secondary" }, label);
  const yes = h("button", { type: "button", class: "danger", hidden: true }, yesLabel);
  const no = h("button", { type: "button", hidden: true }, t("Not now"));
  ask.addEventListener("click", () => {
    ask.hidden = true;
    yes.hidden = false;
    no.hidden = false;
    yes.focus();
  });
  no.addEventListener("click", () => {
    ask.hidden = false;
    yes.hidden = true;
    no.hidden = true;
    ask.focus();
  });
  yes.addEventListener("click", () => run(yes));
  return [ask, yes, no];
}

function dangerControls() {
  const remove = h("button", { type: "button", class: "danger" }, t("Delete this session"));
  const confirm = h("button", { type: "button", class: "danger", hidden: true }, t("Yes, delete it for everyone"));
  const keep = h("button", { type: "button", hidden: true }, t("Keep it"));
  remove.addEventListener("click", () => {
    remove.hidden = true;
    confirm.hidden = false;
    keep.hidden = false;
    confirm.focus();
  });
  keep.addEventListener("click", () => {
    remove.hidden = false;
    confirm.hidden = true;
    keep.hidden = true;
    remove.focus();
  });
  confirm.addEventListener("click", () => act(confirm, () => asMe("DELETE", base())));
  return h("div", { class: "actions danger-zone" }, remove, confirm, keep);
}

// --- links -------------------------------------------------------------------------------

function renderLinks() {
  const frag = view.frag;
  const entries = [];
  const seats = frag.seats;
  const parties = frag.parties;
  for (const name of new Set([...Object.keys(seats), ...Object.keys(parties)])) {
    const seat = seats[name];
    const token = seat || parties[name];
    entries.push([seat ? t("{name} (their seat: they send their own dice)", { name }) : name,
      linkFor({ session: frag.session, kind: frag.kind, token, role: seat ? "seat" : "party", name })]);
  }
  const rows = entries.map(([label, url]) => {
    const input = h("input", { type: "text", readonly: true, value: url, class: "link", id: uid("link") });
    const copy = h("button", { type: "button" }, t("Copy"));
    const note = h("span", { class: "copied", "aria-live": "polite" });
    copy.addEventListener("click", async () => {
      input.select();
      try {
        await navigator.clipboard.writeText(url);
        note.textContent = t("Copied");
      } catch {
        note.textContent = t("Selected: copy it with Ctrl+C");
      }
    });
    return h("li", {}, h("label", { for: input.id }, label), h("div", { class: "link-row" }, input, copy, note));
  });
  fill(document.getElementById("links"),
    entries.length ? h("p", {}, t("Give each player their own link. Whoever holds a link can act as that player: send it privately."))
      : h("p", {}, t("No player links: this session was created without seats (an arm wrestle or a regular contest has player tokens only with seats), or this link does not carry them.")),
    h("ul", { class: "links" }, rows),
    h("p", { class: "muted" }, t("This page's own address is the GM's link: keep it to yourself.")));
}

// --- start -------------------------------------------------------------------------------

function route() {
  clearError();
  if (view.live) {
    view.live.stop();
    view.live = null;
  }
  connection.hidden = true;
  const frag = readFragment();
  if (frag.session) sessionView(frag);
  else startView();
  focusHeading();
}

/** The page's own frame (index.html, written in English) in the page's language. */
function frame() {
  const skip = document.querySelector(".skip");
  if (skip) skip.textContent = t("Skip to the table");
  const sub = document.querySelector(".top .sub");
  if (sub) sub.textContent = t("the table");
  const foot = document.querySelector(".foot");
  if (foot) {
    fill(foot, h("p", {}, t("Arbiter: every die shown, every rule cited. The API is at "),
      h("a", { href: "docs" }, "/docs"), "."));
  }
}

window.addEventListener("hashchange", route);
frame();
route();
