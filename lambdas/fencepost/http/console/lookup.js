// The lookup form: one address (GET /lookup) or a list (POST /lookup), its answers as a table, and the same query
// as a JSON link and a curl line.
import { api, problem } from "./api.js";
import { $, el, fill, quote, say, show } from "./dom.js";

let defaultDataset = null; // the service's, from GET /: what a lookup with nothing ticked answers from

export function chosenDatasets() {
  return [...document.querySelectorAll("#dataset-boxes input:checked")].map((box) => box.value);
}

function lookupRequest(addresses) {
  const names = chosenDatasets();
  const mode = $("mode").value;
  const base = new URL("lookup", location.href);
  if (addresses.length === 1) {
    const query = new URLSearchParams({ ip: addresses[0] });
    if (names.length) query.set("dataset", names.join(","));
    if (names.length > 1 && mode !== "all") query.set("mode", mode);
    const url = base.href + "?" + query.toString();
    return { url, json: url, curl: "curl " + quote(url), options: {} };
  }
  const body = { ips: addresses };
  if (names.length === 1) body.dataset = names[0];
  if (names.length > 1) {
    body.datasets = names;
    body.mode = mode;
  }
  const text = JSON.stringify(body);
  const options = { method: "POST", body: text, headers: { "content-type": "application/json" } };
  const curl = "curl -X POST " + quote(base.href) + " -H 'content-type: application/json' -d " + quote(text);
  return { url: base.href, json: null, curl, options };
}

function answerRows(result) {
  if (Array.isArray(result.answers)) {
    return result.answers.map((answer) => ({ ...answer, ip: result.ip, reserved: result.reserved || answer.reserved }));
  }
  if (!result.dataset && Array.isArray(result.versions)) {
    // an overlay none of whose datasets holds the address: the versions asked
    const versions = result.versions;
    const dataset = versions.map((v) => v.dataset).join(", ");
    return [{ ...result, dataset, version: versions.map((v) => v.version).join(", ") }];
  }
  return [result];
}

function answerRow(row, columns) {
  const error = row.error;
  const result = error ? (error.code === "NOT_FOUND" ? "not found" : error.code) : "found";
  const range = row.range ? row.range.start + " – " + row.range.end : "—";
  const network = row.match ? row.match.network : "—";
  const notes = [];
  if (row.gap) notes.push("gap " + row.gap.start + " – " + row.gap.end);
  if (row.reserved) notes.push("reserved: " + row.reserved.name + " (" + row.reserved.network + ")");
  const cells = [row.ip, el("span", { class: "badge " + (error ? "miss" : "hit") }, result), row.dataset || "—"];
  cells.push(row.version === undefined ? "—" : row.version, range, network);
  for (const column of columns) cells.push(row.data && column in row.data ? row.data[column] : "");
  cells.push(notes.join("; ") || "—");
  return el("tr", { class: error ? "miss" : null }, ...cells.map((cell) => el("td", {}, cell)));
}

function renderAnswers(results) {
  const rows = results.flatMap(answerRows);
  const columns = [];
  for (const row of rows) {
    for (const key of Object.keys(row.data || {})) if (!columns.includes(key)) columns.push(key);
  }
  const head = ["Address", "Result", "Dataset", "Version", "Range", "Network", ...columns, "Gap or reserved"];
  fill($("answers").tHead, [el("tr", {}, ...head.map((name) => el("th", { scope: "col" }, name)))]);
  const body = rows.map((row) => answerRow(row, columns));
  fill($("answers").tBodies[0], body);
  show("answers", true);
  return rows.length;
}

export async function lookUp(text) {
  const addresses = text.split(/[\s,]+/).filter(Boolean);
  const status = $("lookup-status");
  if (!addresses.length) {
    status.textContent = "Type an address, me, or a list of addresses.";
    return;
  }
  if (addresses.length > 1 && addresses.includes("me")) {
    status.textContent = "me is looked up alone: it is your own address, which a list cannot name.";
    return;
  }
  const request = lookupRequest(addresses);
  $("lookup-links").hidden = false;
  $("json-link").hidden = request.json === null;
  if (request.json) $("json-link").href = request.json;
  $("curl-line").value = request.curl;
  status.textContent = "Looking up…";
  try {
    const answer = await api(request.url, request.options);
    const body = answer.body || {};
    const found = Array.isArray(body.results) ? body.results : body.ip ? [body] : null;
    if (!found) {
      status.textContent = "Refused: " + problem(answer);
      show("answers", false);
      return;
    }
    const rows = renderAnswers(found);
    status.textContent = rows + (rows === 1 ? " answer." : " answers.");
  } catch (error) {
    status.textContent = error.message;
  }
}

/** A box for each dataset that serves a version (redrawn only when that list changes: ticks stay). */
export function renderChoices(datasets) {
  const boxes = $("dataset-boxes");
  const names = datasets.filter((d) => d.version !== null).map((d) => d.name);
  const shown = [...boxes.querySelectorAll("input")].map((box) => box.value);
  if (names.join("\n") === shown.join("\n")) return;
  const checked = new Set(chosenDatasets());
  fill(
    boxes,
    names.map((name) =>
      el("label", { class: "check" }, el("input", { type: "checkbox", value: name, checked: checked.has(name) }), name),
    ),
  );
}

/** Reads the service's default dataset (GET / of the API this page came from); the hint stays if it cannot. */
export async function readIndex() {
  const answer = await api(".").catch(() => null);
  const name = answer && answer.status === 200 && answer.body ? answer.body.default_dataset : null;
  if (typeof name === "string") defaultDataset = name;
}

/** The hint under the dataset boxes: the default dataset, and whether it serves anything yet. */
export function renderDefaultHint(datasets) {
  const name = defaultDataset;
  if (name === null) return;
  const served = datasets.some((d) => d.name === name && d.version !== null);
  const rest = served ? "." : ", which serves nothing yet: choose a dataset below.";
  say("dataset-hint", "None chosen: the service's default dataset, " + name + rest);
}
