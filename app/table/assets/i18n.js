// The page's words. Every text a player reads goes through `t` (or `tn` for a count), its
// English text the message id, `{name}` placeholders filled from `values`: the catalogs of
// other languages (`/table/messages/<lang>.json`) key their translations by that text. Each
// message id is a plain string literal where it is used, so that an extractor finds it.

let catalog = null;

/** Use `messages` (`{"English text": "translation", "one|other": ["…", "…"]}`) from now on. */
export function useCatalog(messages) {
  catalog = messages && typeof messages === "object" ? messages : null;
}

function fillIn(text, values) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (values && name in values ? String(values[name]) : whole));
}

/** `text` in the page's language, its `{placeholders}` filled from `values`. */
export function t(text, values = {}) {
  const found = catalog && typeof catalog[text] === "string" ? catalog[text] : text;
  return fillIn(found, values);
}

/** The form of `one` / `other` for `count` (English plural rules until a catalog says more),
 * `{count}` and the other placeholders filled in. */
export function tn(one, other, count, values = {}) {
  const key = `${one}|${other}`;
  const forms = catalog && Array.isArray(catalog[key]) ? catalog[key] : [one, other];
  const index = new Intl.PluralRules(document.documentElement.lang || "en").select(count) === "one" ? 0 : forms.length - 1;
  return fillIn(forms[index], { count, ...values });
}

/** Whose: `Heroes' skills`, `Ann's skills`. */
export function possessive(name) {
  return /s$/i.test(name) ? t("{name}'", { name }) : t("{name}'s", { name });
}
