// The page's words. Every text a player reads goes through `t` (or `tn` for a count), its
// English text the message id, `{name}` placeholders filled from `values`: the catalogs of
// other languages (`/table/messages/<lang>.json`) key their translations by that text. Each
// message id is a plain string literal where it is used, so that an extractor finds it
// (babel.cfg: `t`, and `tn` with its two forms).
//
// The page's language is chosen once, when this module is first loaded: `?lang=` in the
// page's address, else the first of the browser's languages the service speaks (`pt` is
// `pt-BR`), else English. Its catalog is fetched before any module importing this one runs
// (a top-level await), so the page's first render is already in it; English needs no fetch.

/** The languages the page speaks (app/api/i18n.py's `LANGUAGES`), English first. */
export const LANGUAGES = ["en", "de", "fr", "es", "pt-BR"];
const ENGLISH = "en";

let catalog = null;
let categories = ["one", "other"];
let language = ENGLISH;

/** The language `tag` names among those served (`de-DE` → `de`, `pt` → `pt-BR`), or null. */
export function served(tag) {
  if (typeof tag !== "string" || tag === "") return null;
  const wanted = tag.replace(/_/g, "-").toLowerCase();
  const exact = LANGUAGES.find((name) => name.toLowerCase() === wanted);
  if (exact) return exact;
  const primary = wanted.split("-")[0];
  return LANGUAGES.find((name) => name.toLowerCase().split("-")[0] === primary) || null;
}

/** The page's language: `?lang=` in `search` if served, else the first served of `preferred`. */
export function chooseLanguage(search, preferred) {
  const asked = served(new URLSearchParams(search).get("lang") || "");
  if (asked) return asked;
  for (const tag of preferred || []) {
    const found = served(tag);
    if (found) return found;
  }
  return ENGLISH;
}

/** The page's language tag (`Accept-Language` of its calls, `<html lang>`). */
export function pageLanguage() {
  return language;
}

/** Use `messages` (`{"English text": "translation", "one": ["form", …], "": {plural}}`) in
 * `tag` from now on; null for English. */
export function useCatalog(messages, tag = ENGLISH) {
  catalog = messages && typeof messages === "object" ? messages : null;
  language = tag;
  const rule = catalog && catalog[""] && typeof catalog[""] === "object" ? catalog[""] : null;
  categories = rule && Array.isArray(rule.plural) ? rule.plural : ["one", "other"];
}

function fillIn(text, values) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (values && name in values ? String(values[name]) : whole));
}

/** `text` in the page's language, its `{placeholders}` filled from `values`. */
export function t(text, values = {}) {
  const found = catalog && typeof catalog[text] === "string" && catalog[text] ? catalog[text] : text;
  return fillIn(found, values);
}

/** The form of `one` / `other` for `count` in the page's language (its catalog's forms, chosen
 * by the CLDR category of `count`), `{count}` and the other placeholders filled in. */
export function tn(one, other, count, values = {}) {
  const translated = catalog && Array.isArray(catalog[one]) && catalog[one].length === categories.length ? catalog[one] : null;
  const forms = translated || [one, other];
  const names = translated ? categories : ["one", "other"];
  const category = new Intl.PluralRules(translated ? language : ENGLISH).select(count);
  const index = names.indexOf(category);
  return fillIn(forms[index >= 0 ? index : forms.length - 1], { count, ...values });
}

/** Whose: `Heroes' skills`, `Ann's skills`. */
export function possessive(name) {
  return /s$/i.test(name) ? t("{name}'", { name }) : t("{name}'s", { name });
}

/** Choose the page's language and load its catalog (once; English, or a failed fetch, keeps
 * the page's own English text). */
async function load() {
  const tag = chooseLanguage(location.search, navigator.languages || [navigator.language]);
  if (tag !== ENGLISH) {
    try {
      const response = await fetch(`table/messages/${tag}.json`, { headers: { accept: "application/json" } });
      if (response.ok) useCatalog(await response.json(), tag);
    } catch {
      // unreachable or not JSON: the page stays in English
    }
  }
  document.documentElement.lang = language;
}

if (typeof document !== "undefined") await load();
