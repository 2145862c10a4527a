// One dataset in detail: its latest load, sinks and source, its load rate, its kept versions, the latest build's
// changes and its indexed columns' values. `state` is the page's: `datasets` (the list as last read) and `selected`
// (the name of the dataset shown here, or null).
import { problem, settled } from "./api.js";
import { $, duration, el, facts, fill, number, percent, show, staleMark, when } from "./dom.js";
import { renderRate } from "./rate.js";
import { sinkList } from "./sinks.js";

let shown = null; // what the versions and changes were last read for: read again when it changes

/**
 * A table read a page at a time: the first page fills it, its "More" button appends the page the answer's `next`
 * cursor names. `label` starts a refusal's words in the status line; `keep`: a refusal leaves the rows shown, and
 * the table shows even empty (else it hides them, and the table shows only with rows).
 */
function pager({ table, more, status, label, keep = false }) {
  let next = null;
  return {
    get next() {
      return next;
    },
    /** Forgets the cursor (a cursor is pinned to what it was made for) and hides the button. */
    reset() {
      next = null;
      $(more).hidden = true;
    },
    /** Reads one page of `path` (the first when `cursor` is null); `current()` says whether it is still wanted
     * when the answer comes; `render(page)` says the status and returns its rows. */
    async read(path, cursor, current, render) {
      const answer = await settled(path + (cursor ? "&cursor=" + encodeURIComponent(cursor) : ""));
      if (!current()) return; // another dataset (or column, or order) was chosen meanwhile
      if (answer.status !== 200) {
        $(status).textContent = answer.error ? answer.error.message : label + ": " + problem(answer);
        if (!keep) {
          show(table, false);
          $(more).hidden = true;
        }
        return;
      }
      const rows = render(answer.body);
      const body = $(table).tBodies[0];
      if (cursor) body.append(...rows);
      else fill(body, rows);
      show(table, keep || body.rows.length > 0);
      next = answer.body.next;
      $(more).hidden = !next;
    },
  };
}

const changes = pager({ table: "changes", more: "changes-more", status: "diff-status", label: "Changes" });
const values = pager({ table: "values", more: "values-more", status: "values-status", label: "Values", keep: true });

/** Opens the selected dataset: what was shown of another one goes. */
export function openDetail(state) {
  shown = null;
  changes.reset();
  values.reset();
  fill($("values").tBodies[0], []);
  show("values", false);
  $("values-status").textContent = "";
  showDetail(state, true);
  $("detail").hidden = false;
  $("detail-title").focus();
}

function figures(diff) {
  const rows = [
    ["added", number(diff.added)],
    ["removed", number(diff.removed)],
    ["changed", number(diff.changed)],
    ["unchanged", number(diff.unchanged)],
    ["IPv4 space changed", percent(diff.changed_percent_ipv4)],
    ["IPv6 space changed", percent(diff.changed_percent_ipv6)],
    ["IPv4 pieces removed", percent(diff.removed_percent_pieces_ipv4) + " of " + number(diff.live_pieces_ipv4)],
    ["IPv6 pieces removed", percent(diff.removed_percent_pieces_ipv6) + " of " + number(diff.live_pieces_ipv6)],
    ["IPv4 addresses removed", percent(diff.removed_percent_addresses_ipv4)],
    ["IPv6 addresses removed", percent(diff.removed_percent_addresses_ipv6)],
    ["IPv4 addresses added", percent(diff.added_percent_addresses_ipv4)],
    ["IPv6 addresses added", percent(diff.added_percent_addresses_ipv6)],
    ["IPv4 space changed in the window", percent(diff.window_changed_percent_ipv4)],
    ["IPv6 space changed in the window", percent(diff.window_changed_percent_ipv6)],
    ["reserved space", diff.reserved || "none"],
  ];
  return facts("Against version " + diff.baseline + ", live when this build was made", rows);
}

function problems(load) {
  const rows = load.problems.map((p) =>
    el(
      "tr",
      {},
      el("td", {}, p.object || "—"),
      el("td", {}, p.line === null ? "—" : p.line),
      el("td", { class: "reason" }, p.reason),
    ),
  );
  const head = el("tr", {}, ...["Object", "Line", "Reason"].map((h) => el("th", { scope: "col" }, h)));
  const caption = el("caption", {}, "Problems");
  const table = el("table", { id: "problems" }, caption, el("thead", {}, head), el("tbody", {}, ...rows));
  return el("div", { class: "scroll" }, table);
}

/** The live version's dates: when it was built, and its data's own date as its publisher states it (the build
 * epoch of a MaxMind DB, a release's Last-Modified, or a date in a file's name). */
function dates(dataset) {
  const stated = dataset.data_date;
  const data = stated
    ? `its data dated ${when(stated.date)} (${stated.source}: ${stated.object})`
    : "its data's date not stated by its publisher";
  return "Live version built " + when(dataset.built_at) + " · " + data;
}

function renderLoad(dataset) {
  const load = dataset.load || {};
  const status = el("span", { class: "badge " + dataset.status.toLowerCase() }, dataset.status);
  const build = " · latest build " + (load.version === null ? "—" : load.version) + " (" + load.phase + ") · ";
  const counts = number(load.rows_read) + " rows read, " + number(load.items_written) + " items written";
  const parts = [el("p", {}, "Status ", status, build + counts)];
  if (dataset.version !== null) parts.push(el("p", { id: "detail-dates" }, dates(dataset)));
  const sinks = sinkList(dataset);
  if (sinks) parts.push(sinks);
  const stale = staleMark(dataset);
  if (stale) {
    const age = "live version built " + duration(dataset.age_seconds) + " ago";
    parts.push(el("p", {}, stale, " " + age + ", more than its max age of " + duration(dataset.max_age_seconds)));
  }
  if (load.report) parts.push(el("p", { class: "small" }, "Report: " + load.report));
  if (load.diff && load.diff.gate) parts.push(el("p", { class: "gate" }, "Refused by a gate: " + load.diff.gate));
  if (load.diff && load.diff.baseline !== null) parts.push(figures(load.diff));
  if ((load.problems || []).length) parts.push(problems(load));
  fill($("detail-load"), parts);
}

function renderSource(source) {
  if (!source) {
    return fill($("detail-source"), [el("p", {}, "No source: the folder is loaded from what is uploaded to it.")]);
  }
  const checks = `${source.checks} (${source.unchanged} unchanged, ${source.failures_in_a_row} failed in a row)`;
  const rows = [
    ["address", source.url || "—"],
    ["every", source.every_seconds + " s"],
    ["last outcome", source.paused ? "paused" : source.outcome || "—"],
    ["reason", source.reason || "—"],
    ["last checked", when(source.last_checked)],
    ["last changed", when(source.last_changed)],
    ["next check", when(source.next_check)],
    ["checks", checks],
  ];
  fill($("detail-source"), [facts("Source (_source.json)", rows)]);
}

/** Shows the selected dataset as last read; its versions and changes are read again when its load moved on (or
 * `fresh`). A dataset retired while open (its folder emptied) closes: nothing of it is served any more. */
export async function showDetail(state, fresh) {
  const name = state.selected;
  const dataset = state.datasets.find((d) => d.name === name);
  if (!dataset) {
    state.selected = null;
    $("detail").hidden = true;
    return;
  }
  $("detail-title").textContent = "Dataset " + name;
  $("detail-title").setAttribute("tabindex", "-1");
  renderLoad(dataset);
  renderSource(dataset.source);
  renderRate(name);
  const load = dataset.load || {};
  const key = [dataset.version, load.version, load.phase, dataset.status].join("/");
  if (!fresh && shown === key) return;
  shown = key;
  await Promise.all([showVersions(state, name), showChanges(state, name, null)]);
}

function versionRow(v, live) {
  const times = v.live.map((p) => when(p.from) + " → " + (p.until ? when(p.until) : "now")).join("; ");
  return el(
    "tr",
    {},
    el("th", { scope: "row" }, v.version + (v.version === live ? " (live)" : "")),
    el("td", {}, times || "—"),
    el("td", {}, number(v.ranges)),
    el("td", {}, when(v.kept_until)),
    el("td", {}, v.dated || "—"),
  );
}

async function showVersions(state, name) {
  const answer = await settled("datasets/" + encodeURIComponent(name) + "/versions?limit=20");
  if (state.selected !== name) return; // another dataset was chosen meanwhile
  if (answer.status !== 200) {
    $("versions-status").textContent = answer.error ? answer.error.message : "Versions: " + problem(answer);
    show("versions", false);
    return;
  }
  const page = answer.body;
  const live = "Live version: " + (page.live === null ? "none" : page.live);
  const kept = `${live}; kept ${page.retain_days} days after live.`;
  $("versions-status").textContent = page.versions.length ? kept : "No version kept yet.";
  const rows = page.versions.map((v) => versionRow(v, page.live));
  fill($("versions").tBodies[0], rows);
  show("versions", page.versions.length > 0);
  const columns = page.indexed || [];
  const options = columns.map((c) => el("option", { value: c }, c));
  fill($("value-column"), options);
  $("values-form").hidden = !columns.length;
  if (!columns.length) {
    $("values-status").textContent = 'No indexed column (a folder names them in _settings.json: "index": [...]).';
  }
}

function diffSummary(page, latest) {
  const diff = page.diff;
  const summary = "Build " + page.version + " (" + page.status + "): ";
  if (!diff && latest && latest.load && latest.load.phase === "unchanged") {
    return summary + "the folder held what the live version was built from: nothing built.";
  }
  if (!diff) return summary + "not compared yet.";
  if (diff.baseline === null) return summary + (diff.note || "a first version: nothing to compare with.");
  const counts = [number(diff.added) + " added", number(diff.removed) + " removed", number(diff.changed) + " changed"];
  return summary + "against version " + diff.baseline + ": " + counts.join(", ") + ".";
}

function changeRow(c) {
  const now = c.data
    ? Object.entries(c.data)
        .map(([k, v]) => k + "=" + v)
        .join(", ")
    : "not found";
  return el("tr", {}, el("td", {}, c.start), el("td", {}, c.end), el("td", {}, c.change), el("td", {}, now));
}

async function showChanges(state, name, cursor) {
  const render = (page) => {
    $("diff-status").textContent = diffSummary(
      page,
      state.datasets.find((d) => d.name === name),
    );
    return page.changes.map(changeRow);
  };
  const path = "datasets/" + encodeURIComponent(name) + "/diff?limit=50";
  await changes.read(path, cursor, () => state.selected === name, render);
}

/** The next page of the latest build's changes. */
export const moreChanges = (state) => showChanges(state, state.selected, changes.next);

/** The values of the chosen column in the chosen order: the first page, or (`more`) the next one. */
export async function showValues(state, more) {
  const name = state.selected;
  const column = $("value-column").value;
  const sort = $("value-sort").value;
  if (!column) return;
  const path = "datasets/" + encodeURIComponent(name) + "/values/" + encodeURIComponent(column);
  const current = () => state.selected === name && $("value-column").value === column && $("value-sort").value === sort;
  await values.read(path + "?limit=100&sort=" + sort, more ? values.next : null, current, (page) => {
    const distinct = ": " + number(page.distinct) + " distinct.";
    $("values-status").textContent = "Values of " + column + " in version " + page.version + distinct;
    return page.values.map((v) => valueRow(name, column, page.version, v));
  });
}

function valueRow(name, column, version, v) {
  const query = "ranges?dataset=" + encodeURIComponent(name) + "&version=" + version;
  const where = query + "&where=" + encodeURIComponent(column + ":" + v.value);
  const links = el(
    "span",
    {},
    el("a", { href: where }, "ranges"),
    " · ",
    el("a", { href: where + "&format=cidr" }, "CIDR list"),
  );
  return el(
    "tr",
    {},
    el("th", { scope: "row" }, v.value),
    el("td", {}, number(v.pieces)),
    el("td", {}, number(v.ipv4_addresses)),
    el("td", {}, number(v.ipv6_64s)),
    el("td", {}, links),
  );
}

/** A new column or order: the values shown stay, but their cursor no longer applies. */
export const forgetValues = () => values.reset();
