// Elements, HTML and SVG, built from text: every value from the API is inserted as text (a string appended, or
// textContent), never as markup. And the formatters every panel shares.

const SVG = "http://www.w3.org/2000/svg";

export const $ = (id) => document.getElementById(id);

function build(node, attributes, children) {
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** An HTML element: attributes null, undefined or false are left out; children are nodes or text. */
export const el = (tag, attributes, ...children) => build(document.createElement(tag), attributes, children);

/** An SVG element, likewise. */
export const svg = (tag, attributes, ...children) => build(document.createElementNS(SVG, tag), attributes, children);

export const fill = (node, children) => node.replaceChildren(...children);

/** A table of figures: a caption, then one row a figure (its name, its value). */
export const facts = (caption, rows) => {
  const row = ([name, value]) => el("tr", {}, el("th", { scope: "row" }, name), el("td", {}, value));
  return el("table", { class: "figures" }, el("caption", {}, caption), el("tbody", {}, ...rows.map(row)));
};

/** Shows or hides a table and its scrolling region. */
export const show = (id, shown) => {
  $(id).hidden = !shown;
  $(id).parentElement.hidden = !shown;
};

/** Sets a live region's text, only when it changes: a live region speaks at each change. */
export const say = (id, text) => {
  if ($(id).textContent !== text) $(id).textContent = text;
};

export const number = (value) => (typeof value === "number" ? value.toLocaleString("en-US") : "—");

export const percent = (value) =>
  typeof value === "number"
    ? Number(value.toPrecision(4)).toLocaleString("en-US", { maximumFractionDigits: 8 }) + " %"
    : "—";

/** An API time (ISO 8601, UTC) as read: "2026-11-21 10:00:00 UTC". */
export function when(text) {
  if (!text) return "—";
  return String(text)
    .replace("T", " ")
    .replace(/\.\d+/, "")
    .replace(/(Z|\+00:00)$/, " UTC");
}

/** A shell word: the text in single quotes. */
export const quote = (text) => "'" + String(text).replace(/'/g, "'\\''") + "'";

/** Seconds as read: "9 d", "1 d 12 h", "5 h", "5 min", "40 s" (whole units, rounded down). */
export function duration(seconds) {
  if (typeof seconds !== "number") return "—";
  if (seconds >= 86400) {
    const hours = Math.floor((seconds % 86400) / 3600);
    return Math.floor(seconds / 86400) + " d" + (hours ? " " + hours + " h" : "");
  }
  if (seconds >= 3600) return Math.floor(seconds / 3600) + " h";
  if (seconds >= 60) return Math.floor(seconds / 60) + " min";
  return seconds + " s";
}

/** A dataset's STALE mark (its live version older than its max age, GET /datasets' "stale"), or null. */
export function staleMark(dataset) {
  if (dataset.stale !== true) return null;
  const why = "built " + duration(dataset.age_seconds) + " ago, max age " + duration(dataset.max_age_seconds);
  return el("span", { class: "badge stale", title: why }, "STALE");
}
