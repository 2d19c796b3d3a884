// Building the page's elements: every text the API or a player chose goes in as text (never
// as markup), and no style is written inline (the page's policy refuses inline styles; a
// bar's length is an SVG attribute or a CSSOM property).

const SVG_NS = "http://www.w3.org/2000/svg";

/** `h("p", {class: "x"}, "text", child)`: an element with attributes and children. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

/** An SVG element, as `h` builds an HTML one. */
export function s(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG_NS, tag);
  setAttributes(element, attributes);
  append(element, children);
  return element;
}

function setAttributes(element, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "dataset") {
      Object.assign(element.dataset, value);
    } else if (value === true) {
      element.setAttribute(name, "");
    } else {
      element.setAttribute(name, String(value));
    }
  }
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace the children of `element` with `children`. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** `fill`, but leave `element` untouched when `children` equal what it already holds, so
 * that what a reader has selected in it (to copy a summary, say) stays selected through a
 * live event that changed nothing there. Only for children without listeners: the old ones
 * are kept in place of equal new ones. */
export function refill(element, ...children) {
  const next = element.cloneNode(false);
  append(next, children);
  if (!next.isEqualNode(element)) element.replaceChildren(...next.childNodes);
  return element;
}

let counter = 0;

/** A fresh id for a label's `for`. */
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** A labelled input: `[label, input]` wrapped in a `<div class="field">`. */
export function field(label, input, hint = null) {
  if (!input.id) input.id = uid("field");
  const parts = [h("label", { for: input.id }, label), input];
  if (hint) {
    const hintId = uid("hint");
    input.setAttribute("aria-describedby", hintId);
    parts.push(h("small", { id: hintId, class: "hint" }, hint));
  }
  return h("div", { class: input.type === "checkbox" ? "field check" : "field" }, parts);
}
