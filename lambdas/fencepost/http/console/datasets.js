// The dataset list: each dataset, its status, its live version and its latest load, as GET /datasets answers.
import { $, el, fill, number, say, staleMark, when } from "./dom.js";

function progressOf(load) {
  if (load.phase === "writing" && load.items > 0) {
    const label = "items written of the build " + load.version + ", of " + load.items;
    return el("progress", { max: load.items, value: Math.min(load.items_written, load.items), "aria-label": label });
  }
  return el("progress", { "aria-label": "reading the build " + load.version });
}

function loadCell(dataset) {
  const load = dataset.load || {};
  if (dataset.status === "LOADING") {
    if (load.version === null || load.version === undefined) return el("span", {}, "waiting to build");
    const total = load.items > 0 ? " of " + number(load.items) : "";
    const counts = number(load.rows_read) + " rows read, " + number(load.items_written) + total + " items written";
    const phase = "build " + load.version + ": " + load.phase;
    return el("div", {}, phase, progressOf(load), el("div", { class: "small" }, counts));
  }
  if (dataset.status === "FAILED") {
    const first = (load.problems || [])[0];
    const source = dataset.source && dataset.source.reason ? dataset.source.reason : "see the report";
    const reason = first ? first.reason : source;
    const build = "build " + (load.version === null ? "—" : load.version) + " failed: ";
    return el("div", {}, build, el("span", { class: "reason" }, reason));
  }
  return el("span", {}, load.phase === "unchanged" ? "unchanged" : "build " + load.version + " " + (load.phase || ""));
}

function sourceCell(source) {
  if (!source) return "—";
  const outcome = source.paused ? "paused" : source.outcome || "not checked yet";
  return el("div", {}, outcome, el("div", { class: "small" }, "next check " + when(source.next_check)));
}

function datasetRow(dataset, selected, onSelect) {
  const button = el("button", { type: "button", class: "link", "aria-controls": "detail" }, dataset.name);
  button.addEventListener("click", () => onSelect(dataset.name));
  const badge = el("span", { class: "badge " + String(dataset.status).toLowerCase() }, dataset.status);
  const stale = staleMark(dataset);
  const status = stale ? el("span", {}, badge, " ", stale) : badge;
  const cells = [button, status, dataset.version === null ? "—" : dataset.version, number(dataset.ranges)];
  cells.push(when(dataset.loaded_at), loadCell(dataset), sourceCell(dataset.source));
  const current = dataset.name === selected ? "true" : null;
  return el(
    "tr",
    { "data-name": dataset.name, "aria-current": current },
    ...cells.map((cell, index) => el(index ? "td" : "th", index ? {} : { scope: "row" }, cell)),
  );
}

/** The list anew, the keyboard kept on the row it was on; a dataset's button calls onSelect with its name. */
export function renderDatasets(datasets, selected, onSelect) {
  const focused = document.activeElement && document.activeElement.closest("#dataset-table tr");
  const rows = datasets.map((dataset) => datasetRow(dataset, selected, onSelect));
  fill($("dataset-table").tBodies[0], rows);
  const again = focused && rows.find((row) => row.dataset.name === focused.dataset.name);
  if (again) again.querySelector("button").focus();
  const loading = datasets.filter((d) => d.status === "LOADING").length;
  say("datasets-status", datasets.length + " datasets" + (loading ? ", " + loading + " loading" : "") + ".");
  $("datasets-read").textContent = "Read at " + new Date().toISOString().slice(11, 19) + " UTC.";
}

/** Marks the dataset shown in detail as the list's current row. */
export function markSelected(name) {
  for (const row of document.querySelectorAll("#dataset-table tbody tr")) {
    row.setAttribute("aria-current", row.dataset.name === name ? "true" : "false");
  }
}
