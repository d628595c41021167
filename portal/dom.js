// Building DOM without HTML strings: every text (payloads, names, URLs
// from the API) goes in as a text node, so nothing the API returns is ever
// parsed as HTML.

/**
 * h("button", { type: "button", onclick: f, "aria-label": "…" }, "text", child)
 * Attributes starting with "on" are listeners; `class`, `for`, `role`,
 * `aria-*` and other names are attributes; `value`/`checked`/`disabled`/
 * `hidden` are properties. Children are nodes or strings (text nodes).
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") {
      el.addEventListener(k.slice(2), v);
    } else if (k === "value" || k === "checked" || k === "disabled" || k === "hidden" || k === "selected") {
      el[k] = v;
    } else {
      el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

/** Replaces `el`'s children. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A timestamp (unix ms or RFC 3339) as a readable local time. */
export function when(t) {
  if (t === null || t === undefined) return "—";
  const d = typeof t === "number" ? new Date(t) : new Date(t);
  return isNaN(d) ? String(t) : d.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

/** Pretty JSON as text (never HTML). */
export function pretty(v) {
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

let ids = 0;
/** A unique id for label/aria wiring inside one shadow root. */
export function uid(prefix) {
  ids += 1;
  return `${prefix}-${ids}`;
}
