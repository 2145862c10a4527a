// The load chart: items written a second (left axis) over the seconds since this page first saw the build write,
// from what the page itself saw of load.items_written between refreshes.
import { $, el, fill, number, svg } from "./dom.js";

const CHART = { width: 360, height: 150, left: 56, right: 12, top: 10, bottom: 40 };
const watched = {}; // by dataset: the build watched, and its items written at each refresh ({t: seconds, items})

/** Notes the items written so far by every build that is writing. */
export function noteRates(datasets) {
  const now = Date.now() / 1000;
  for (const dataset of datasets) {
    const load = dataset.load || {};
    if (dataset.status !== "LOADING" || load.phase !== "writing") continue;
    const points = (watched[dataset.name] ||= { build: load.version, points: [] });
    if (points.build !== load.version) Object.assign(points, { build: load.version, points: [] });
    const last = points.points[points.points.length - 1];
    if (!last || last.items !== load.items_written) points.points.push({ t: now, items: load.items_written });
  }
}

function axes(top, span) {
  const c = CHART;
  const right = c.width - c.right;
  const bottom = c.height - c.bottom;
  const middle = (c.top + bottom) / 2;
  return [
    svg("line", { class: "axis", x1: c.left, y1: c.top, x2: c.left, y2: bottom }),
    svg("line", { class: "axis", x1: c.left, y1: bottom, x2: right, y2: bottom }),
    svg("text", { x: c.left - 4, y: c.top + 4, "text-anchor": "end" }, number(Math.round(top))),
    svg("text", { x: c.left - 4, y: bottom, "text-anchor": "end" }, "0"),
    svg("text", { x: c.left, y: bottom + 14, "text-anchor": "middle" }, "0 s"),
    svg("text", { x: right, y: bottom + 14, "text-anchor": "end" }, Math.round(span) + " s"),
    svg(
      "text",
      { class: "title", x: (c.left + right) / 2, y: c.height - 4, "text-anchor": "middle" },
      "seconds since this page first saw the build write",
    ),
    svg(
      "text",
      { class: "title", x: 12, y: middle, "text-anchor": "middle", transform: "rotate(-90 12 " + middle + ")" },
      "items written / s",
    ),
  ];
}

/** The chart of a dataset's build, or a line saying none was watched writing yet. */
export function renderRate(name) {
  const record = watched[name];
  const points = record ? record.points : [];
  if (points.length < 2) {
    const none = "Items written a second, as this page sees them while a load writes: none watched yet.";
    return fill($("rate"), [el("p", {}, none)]);
  }
  const speeds = points.slice(1).map((p, i) => {
    const seconds = Math.max(0.001, p.t - points[i].t);
    return { t: p.t - points[0].t, r: (p.items - points[i].items) / seconds };
  });
  const top = Math.max(...speeds.map((p) => p.r), 1);
  const span = Math.max(speeds[speeds.length - 1].t, 1);
  const c = CHART;
  const wide = c.width - c.left - c.right;
  const high = c.height - c.top - c.bottom;
  const fastest = Math.round(top).toLocaleString("en-US");
  const summary = `Build ${record.build}: up to ${fastest} items written a second over ${Math.round(span)} s`;
  const chart = svg("svg", { viewBox: "0 0 " + c.width + " " + c.height, role: "img", "aria-label": summary });
  const at = (p) => (c.left + (p.t / span) * wide).toFixed(1) + "," + (c.top + high - (p.r / top) * high).toFixed(1);
  chart.append(...axes(top, span), svg("polyline", { points: speeds.map(at).join(" ") }));
  fill($("rate"), [chart, el("p", { class: "small" }, summary + " (as this page saw them between refreshes)")]);
}
