// Fencepost's console: reads the public API of the origin it is served from and shows it. Every value from the API
// is inserted as text (element.append of a string, textContent), never as HTML.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const IDLE_MS = 5000; // the dataset list's refresh while nothing loads
  const LOADING_MS = 1000; // ... and while something is LOADING
  const state = { datasets: [], selected: null, timer: null, busy: false, last: 0, signed: false, shown: null, rates: {} };
  Object.assign(state, { changes: null, values: null, capacity: null, defaultDataset: null });

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") node.className = value;
      else node.setAttribute(name, String(value));
    }
    for (const child of children) {
      if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }
  const number = (value) => (typeof value === "number" ? value.toLocaleString("en-US") : "—");
  const percent = (value) =>
    typeof value === "number" ? Number(value.toPrecision(4)).toLocaleString("en-US", { maximumFractionDigits: 8 }) + " %" : "—";
  const when = (text) =>
    text ? String(text).replace("T", " ").replace(/\.\d+/, "").replace(/(Z|\+00:00)$/, " UTC") : "—";
  const fill = (body, rows) => body.replaceChildren(...rows);
  const facts = (caption, rows) =>
    el("table", { class: "figures" }, el("caption", {}, caption),
      el("tbody", {}, ...rows.map(([name, value]) => el("tr", {}, el("th", { scope: "row" }, name), el("td", {}, value)))));
  const quote = (text) => "'" + String(text).replace(/'/g, "'\\''") + "'";

  const show = (id, shown) => {
    $(id).hidden = !shown;
    $(id).parentElement.hidden = !shown; // the table's scrolling region too
  };
  const say = (id, text) => {
    if ($(id).textContent !== text) $(id).textContent = text; // a live region speaks only when its text changes
  };

  class Refused extends Error {}

  async function api(path, options) {
    let response;
    try {
      const headers = { accept: "application/json", ...(options && options.headers) };
      response = await fetch(path, { ...options, headers });
    } catch (error) {
      throw new Refused("the API did not answer (" + error.message + ")");
    }
    let body = null;
    try {
      body = await response.json();
    } catch (_) {
      body = null;
    }
    if (response.status === 403 && !(body && body.error)) {
      state.signed = true; // the refreshes stop: every one would be refused the same way
      notice(
        "This deployment requires SigV4-signed requests (auth=iam), and a browser cannot sign them. Open the " +
          "console through a local signing proxy instead (docs/deploy.md, 'The web console'), or deploy with " +
          "auth=none behind your own access control."
      );
      throw new Refused("refused: requests must be signed (auth=iam)");
    }
    return { status: response.status, body };
  }
  const problem = (answer) => {
    const error = answer.body && answer.body.error;
    return error ? error.code + ": " + error.message : "HTTP " + answer.status;
  };
  function notice(text) {
    $("notice").textContent = text;
    $("notice").hidden = false;
  }

  // -- lookups ---------------------------------------------------------------------------------------------

  function chosenDatasets() {
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
      return [{ ...result, dataset: versions.map((v) => v.dataset).join(", "), version: versions.map((v) => v.version).join(", ") }];
    }
    return [result];
  }

  function renderAnswers(results) {
    const rows = results.flatMap(answerRows);
    const columns = [];
    for (const row of rows) for (const key of Object.keys(row.data || {})) if (!columns.includes(key)) columns.push(key);
    const head = ["Address", "Result", "Dataset", "Version", "Range", "Network", ...columns, "Gap or reserved"];
    fill($("answers").tHead, [el("tr", {}, ...head.map((name) => el("th", { scope: "col" }, name)))]);
    const body = rows.map((row) => {
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
    });
    fill($("answers").tBodies[0], body);
    show("answers", true);
    return rows.length;
  }

  async function lookUp(text) {
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

  function renderChoices() {
    const boxes = $("dataset-boxes");
    const names = state.datasets.filter((d) => d.version !== null).map((d) => d.name);
    const shown = [...boxes.querySelectorAll("input")].map((box) => box.value);
    if (names.join("\n") === shown.join("\n")) return;
    const checked = new Set(chosenDatasets());
    fill(
      boxes,
      names.map((name) =>
        el("label", { class: "check" }, el("input", { type: "checkbox", value: name, checked: checked.has(name) }), name)
      )
    );
  }

  async function readIndex() {
    const answer = await api(".").catch(() => null); // GET / of the API this page came from
    const name = answer && answer.status === 200 && answer.body ? answer.body.default_dataset : null;
    if (typeof name !== "string") return; // the hint stays as the page wrote it
    state.defaultDataset = name;
    renderDefaultHint();
  }

  function renderDefaultHint() {
    const name = state.defaultDataset;
    if (name === null) return;
    const served = state.datasets.some((d) => d.name === name && d.version !== null);
    const rest = served ? "." : ", which serves nothing yet: choose a dataset below.";
    say("dataset-hint", "None chosen: the service's default dataset, " + name + rest);
  }

  // -- the dataset list ------------------------------------------------------------------------------------

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
      return el("div", {}, "build " + load.version + ": " + load.phase, progressOf(load), el("div", { class: "small" }, counts));
    }
    if (dataset.status === "FAILED") {
      const first = (load.problems || [])[0];
      const reason = first ? first.reason : dataset.source && dataset.source.reason ? dataset.source.reason : "see the report";
      return el("div", {}, "build " + (load.version === null ? "—" : load.version) + " failed: ", el("span", { class: "reason" }, reason));
    }
    return el("span", {}, load.phase === "unchanged" ? "unchanged" : "build " + load.version + " " + (load.phase || ""));
  }

  function sourceCell(source) {
    if (!source) return "—";
    const outcome = source.paused ? "paused" : source.outcome || "not checked yet";
    return el("div", {}, outcome, el("div", { class: "small" }, "next check " + when(source.next_check)));
  }

  function datasetRow(dataset) {
    const button = el("button", { type: "button", class: "link", "aria-controls": "detail" }, dataset.name);
    button.addEventListener("click", () => select(dataset.name));
    const status = el("span", { class: "badge " + String(dataset.status).toLowerCase() }, dataset.status);
    const cells = [button, status, dataset.version === null ? "—" : dataset.version, number(dataset.ranges)];
    cells.push(when(dataset.loaded_at), loadCell(dataset), sourceCell(dataset.source));
    return el("tr", { "data-name": dataset.name, "aria-current": dataset.name === state.selected ? "true" : null },
      ...cells.map((cell, index) => el(index ? "td" : "th", index ? {} : { scope: "row" }, cell)));
  }

  function schedule() {
    clearTimeout(state.timer);
    if (document.hidden || state.signed) return;
    const loading = state.datasets.some((dataset) => dataset.status === "LOADING");
    state.timer = setTimeout(refresh, loading ? LOADING_MS : IDLE_MS);
  }

  async function refresh() {
    clearTimeout(state.timer);
    if (state.busy || state.signed) return; // one refresh at a time: the one in flight schedules the next
    state.busy = true;
    state.last = Date.now();
    try {
      const answer = await api("datasets");
      if (answer.status !== 200) throw new Refused("The datasets could not be read: " + problem(answer));
      state.datasets = answer.body.datasets;
      const focused = document.activeElement && document.activeElement.closest("#dataset-table tr");
      const rows = state.datasets.map(datasetRow);
      fill($("dataset-table").tBodies[0], rows);
      const again = focused && rows.find((row) => row.dataset.name === focused.dataset.name);
      if (again) again.querySelector("button").focus(); // the rows are new: keep the keyboard where it was
      const loading = state.datasets.filter((d) => d.status === "LOADING").length;
      say("datasets-status", state.datasets.length + " datasets" + (loading ? ", " + loading + " loading" : "") + ".");
      $("datasets-read").textContent = "Read at " + new Date().toISOString().slice(11, 19) + " UTC.";
      renderChoices();
      renderDefaultHint();
      noteRates();
      if (state.selected) showDetail(false);
      await refreshCapacity();
    } catch (error) {
      $("datasets-status").textContent = error.message;
    } finally {
      state.busy = false;
      schedule();
    }
  }

  // -- one dataset -----------------------------------------------------------------------------------------

  function select(name) {
    state.selected = name;
    state.shown = null;
    state.changes = state.values = null;
    fill($("values").tBodies[0], []);
    show("values", false);
    $("values-more").hidden = $("changes-more").hidden = true;
    $("values-status").textContent = "";
    for (const row of document.querySelectorAll("#dataset-table tbody tr")) {
      row.setAttribute("aria-current", row.dataset.name === name ? "true" : "false");
    }
    showDetail(true);
    $("detail").hidden = false;
    $("detail-title").focus();
  }

  function figures(diff) {
    const rows = [
      ["added", number(diff.added)], ["removed", number(diff.removed)],
      ["changed", number(diff.changed)], ["unchanged", number(diff.unchanged)],
      ["IPv4 space changed", percent(diff.changed_percent_ipv4)], ["IPv6 space changed", percent(diff.changed_percent_ipv6)],
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
    const caption = "Against version " + diff.baseline + ", live when this build was made";
    return facts(caption, rows);
  }

  function renderLoad(dataset) {
    const load = dataset.load || {};
    const parts = [el("p", {}, "Status ", el("span", { class: "badge " + dataset.status.toLowerCase() }, dataset.status),
      " · latest build " + (load.version === null ? "—" : load.version) + " (" + load.phase + ") · " +
      number(load.rows_read) + " rows read, " + number(load.items_written) + " items written")];
    if (load.report) parts.push(el("p", { class: "small" }, "Report: " + load.report));
    if (load.diff && load.diff.gate) parts.push(el("p", { class: "gate" }, "Refused by a gate: " + load.diff.gate));
    if (load.diff && load.diff.baseline !== null) parts.push(figures(load.diff));
    if ((load.problems || []).length) {
      const rows = load.problems.map((p) => el("tr", {}, el("td", {}, p.object || "—"), el("td", {}, p.line === null ? "—" : p.line), el("td", { class: "reason" }, p.reason)));
      parts.push(el("div", { class: "scroll" }, el("table", { id: "problems" }, el("caption", {}, "Problems"),
        el("thead", {}, el("tr", {}, ...["Object", "Line", "Reason"].map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, ...rows))));
    }
    fill($("detail-load"), parts);
  }

  function renderSource(source) {
    if (!source) return fill($("detail-source"), [el("p", {}, "No source: the folder is loaded from what is uploaded to it.")]);
    const rows = [["address", source.url || "—"], ["every", source.every_seconds + " s"], ["last outcome", source.paused ? "paused" : source.outcome || "—"],
      ["reason", source.reason || "—"], ["last checked", when(source.last_checked)], ["last changed", when(source.last_changed)],
      ["next check", when(source.next_check)], ["checks", source.checks + " (" + source.unchanged + " unchanged, " + source.failures_in_a_row + " failed in a row)"]];
    fill($("detail-source"), [facts("Source (_source.json)", rows)]);
  }

  function noteRates() {
    const now = Date.now() / 1000;
    for (const dataset of state.datasets) {
      const load = dataset.load || {};
      if (dataset.status !== "LOADING" || load.phase !== "writing") continue;
      const points = (state.rates[dataset.name] ||= { build: load.version, points: [] });
      if (points.build !== load.version) Object.assign(points, { build: load.version, points: [] });
      const last = points.points[points.points.length - 1];
      if (!last || last.items !== load.items_written) points.points.push({ t: now, items: load.items_written });
    }
  }

  // The load chart: items written a second (left axis) over the seconds since this page first saw the build write
  const CHART = { width: 360, height: 150, left: 56, right: 12, top: 10, bottom: 40 };

  function svgEl(tag, attributes, text) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function axes(top, span) {
    const c = CHART, right = c.width - c.right, bottom = c.height - c.bottom;
    return [
      svgEl("line", { class: "axis", x1: c.left, y1: c.top, x2: c.left, y2: bottom }),
      svgEl("line", { class: "axis", x1: c.left, y1: bottom, x2: right, y2: bottom }),
      svgEl("text", { x: c.left - 4, y: c.top + 4, "text-anchor": "end" }, number(Math.round(top))),
      svgEl("text", { x: c.left - 4, y: bottom, "text-anchor": "end" }, "0"),
      svgEl("text", { x: c.left, y: bottom + 14, "text-anchor": "middle" }, "0 s"),
      svgEl("text", { x: right, y: bottom + 14, "text-anchor": "end" }, Math.round(span) + " s"),
      svgEl("text", { class: "title", x: (c.left + right) / 2, y: c.height - 4, "text-anchor": "middle" }, "seconds since this page first saw the build write"),
      svgEl("text", { class: "title", x: 12, y: (c.top + bottom) / 2, "text-anchor": "middle", transform: "rotate(-90 12 " + (c.top + bottom) / 2 + ")" }, "items written / s"),
    ];
  }

  function renderRate(name) {
    const record = state.rates[name];
    const points = record ? record.points : [];
    if (points.length < 2) {
      return fill($("rate"), [el("p", {}, "Items written a second, as this page sees them while a load writes: none watched yet.")]);
    }
    const rates = points.slice(1).map((p, i) => ({ t: p.t - points[0].t, r: (p.items - points[i].items) / Math.max(0.001, p.t - points[i].t) }));
    const top = Math.max(...rates.map((p) => p.r), 1), span = Math.max(rates[rates.length - 1].t, 1);
    const c = CHART, wide = c.width - c.left - c.right, high = c.height - c.top - c.bottom;
    const summary = "Build " + record.build + ": up to " + Math.round(top).toLocaleString("en-US") + " items written a second over " + Math.round(span) + " s";
    const svg = svgEl("svg", { viewBox: "0 0 " + c.width + " " + c.height, role: "img", "aria-label": summary });
    const at = (p) => (c.left + (p.t / span) * wide).toFixed(1) + "," + (c.top + high - (p.r / top) * high).toFixed(1);
    svg.append(...axes(top, span), svgEl("polyline", { points: rates.map(at).join(" ") }));
    fill($("rate"), [svg, el("p", { class: "small" }, summary + " (as this page saw them between refreshes)")]);
  }

  async function showDetail(fresh) {
    const name = state.selected;
    const dataset = state.datasets.find((d) => d.name === name);
    if (!dataset) {
      // retired (its folder emptied) while it was open: nothing of it is served any more
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
    if (!fresh && state.shown === key) return;
    state.shown = key;
    await Promise.all([showVersions(name), showChanges(name, null)]);
  }

  async function showVersions(name) {
    const answer = await api("datasets/" + encodeURIComponent(name) + "/versions?limit=20").catch((e) => ({ status: 0, body: null, error: e }));
    if (state.selected !== name) return; // another dataset was chosen meanwhile
    if (answer.status !== 200) {
      $("versions-status").textContent = answer.error ? answer.error.message : "Versions: " + problem(answer);
      show("versions", false);
      return;
    }
    const page = answer.body;
    $("versions-status").textContent = page.versions.length ? "Live version: " + (page.live === null ? "none" : page.live) + "; kept " + page.retain_days + " days after live." : "No version kept yet.";
    fill($("versions").tBodies[0], page.versions.map((v) => el("tr", {}, el("th", { scope: "row" }, v.version + (v.version === page.live ? " (live)" : "")),
      el("td", {}, v.live.map((p) => when(p.from) + " → " + (p.until ? when(p.until) : "now")).join("; ") || "—"), el("td", {}, number(v.ranges)),
      el("td", {}, when(v.kept_until)), el("td", {}, v.dated || "—"))));
    show("versions", page.versions.length > 0);
    const columns = page.indexed || [];
    fill($("value-column"), columns.map((c) => el("option", { value: c }, c)));
    $("values-form").hidden = !columns.length;
    if (!columns.length) $("values-status").textContent = "No indexed column (a folder names them in _settings.json: \"index\": [...]).";

  }

  async function showChanges(name, cursor) {
    const query = "datasets/" + encodeURIComponent(name) + "/diff?limit=50" + (cursor ? "&cursor=" + encodeURIComponent(cursor) : "");
    const answer = await api(query).catch((e) => ({ status: 0, error: e }));
    if (state.selected !== name) return;
    if (answer.status !== 200) {
      $("diff-status").textContent = answer.error ? answer.error.message : "Changes: " + problem(answer);
      show("changes", false);
      $("changes-more").hidden = true;
      return;
    }
    const page = answer.body, diff = page.diff;
    let summary = "Build " + page.version + " (" + page.status + "): ";
    const latest = state.datasets.find((d) => d.name === name);
    if (!diff && latest && latest.load && latest.load.phase === "unchanged") summary += "the folder held what the live version was built from: nothing built.";
    else if (!diff) summary += "not compared yet.";
    else if (diff.baseline === null) summary += diff.note || "a first version: nothing to compare with.";
    else summary += "against version " + diff.baseline + ": " + number(diff.added) + " added, " + number(diff.removed) + " removed, " + number(diff.changed) + " changed.";
    $("diff-status").textContent = summary;
    const rows = page.changes.map((c) => el("tr", {}, el("td", {}, c.start), el("td", {}, c.end), el("td", {}, c.change),
      el("td", {}, c.data ? Object.entries(c.data).map(([k, v]) => k + "=" + v).join(", ") : "not found")));
    if (cursor) $("changes").tBodies[0].append(...rows);
    else fill($("changes").tBodies[0], rows);
    show("changes", $("changes").tBodies[0].rows.length > 0);
    state.changes = page.next;
    $("changes-more").hidden = !page.next;
  }

  async function showValues(cursor) {
    const name = state.selected, column = $("value-column").value, sort = $("value-sort").value;
    if (!column) return;
    const path = "datasets/" + encodeURIComponent(name) + "/values/" + encodeURIComponent(column);
    const answer = await api(path + "?limit=100&sort=" + sort + (cursor ? "&cursor=" + encodeURIComponent(cursor) : "")).catch((e) => ({ status: 0, error: e }));
    if (state.selected !== name || $("value-column").value !== column || $("value-sort").value !== sort) return;
    if (answer.status !== 200) {
      $("values-status").textContent = answer.error ? answer.error.message : "Values: " + problem(answer);
      return;
    }
    const page = answer.body;
    $("values-status").textContent = "Values of " + column + " in version " + page.version + ": " + number(page.distinct) + " distinct.";
    const rows = page.values.map((v) => {
      const where = "ranges?dataset=" + encodeURIComponent(name) + "&version=" + page.version + "&where=" + encodeURIComponent(column + ":" + v.value);
      const links = el("span", {}, el("a", { href: where }, "ranges"), " · ", el("a", { href: where + "&format=cidr" }, "CIDR list"));
      return el("tr", {}, el("th", { scope: "row" }, v.value), el("td", {}, number(v.pieces)), el("td", {}, number(v.ipv4_addresses)), el("td", {}, number(v.ipv6_64s)), el("td", {}, links));
    });
    if (cursor) $("values").tBodies[0].append(...rows);
    else fill($("values").tBodies[0], rows);
    show("values", true);
    state.values = page.next;
    $("values-more").hidden = !page.next;
  }

  // -- the capacity emulator (make run only: GET /local/capacity is the local stack's, not the service's) --------

  async function refreshCapacity() {
    if (state.capacity === false) return;
    const answer = await api("local/capacity").catch(() => null);
    if (answer && answer.status === 404) {
      state.capacity = false; // deployed: there is no emulator, and the page never asks again
      return;
    }
    if (!answer || answer.status !== 200 || !answer.body || !("emulated" in answer.body)) return; // asked again later
    state.capacity = true;
    $("capacity").hidden = false;
    if (!answer.body.emulated) $("capacity-status").textContent = "DynamoDB Local has no partitions: " + answer.body.hint + ".";
    else renderHeat(answer.body);
  }

  function renderHeat(body) {
    const table = body.seconds.length ? body.seconds[body.seconds.length - 1].table : null;
    const seconds = body.seconds.filter((s) => s.table === table).slice(-60);
    if (!seconds.length) {
      $("capacity-status").textContent = "Emulated (" + body.mode + "): no request in the last two minutes.";
      return;
    }
    const last = seconds[seconds.length - 1], first = last.second - 59;
    const cells = [], totals = new Map();
    for (const second of seconds) {
      for (const p of second.by_partition) {
        if (p.index) continue;
        const accepted = p.write || 0, throttled = p.write_throttled || 0;
        cells.push({ n: p.number, t: second.second, accepted, throttled });
        if (second.second > last.second - 10) {
          const sum = totals.get(p.number) || [0, 0];
          totals.set(p.number, [sum[0] + accepted / 10, sum[1] + throttled / 10]);
        }
      }
    }
    const numbers = [...new Set(cells.map((c) => c.n))].sort((a, b) => a - b);
    const top = Math.max(1, ...cells.map((c) => c.accepted + c.throttled));
    const svgNS = "http://www.w3.org/2000/svg", svg = document.createElementNS(svgNS, "svg");
    svg.setAttribute("viewBox", "0 0 300 " + Math.max(8, numbers.length * 8));
    svg.setAttribute("role", "img");
    const summary = "Write units a second on each of the table's " + last.partitions + " partitions (rows) over the last 60 seconds (columns)";
    svg.setAttribute("aria-label", summary);
    for (const cell of cells) {
      const rect = document.createElementNS(svgNS, "rect");
      const size = { x: (cell.t - first) * 5, y: numbers.indexOf(cell.n) * 8, width: 5, height: 7 };
      for (const [name, value] of Object.entries(size)) rect.setAttribute(name, String(value));
      rect.setAttribute("fill-opacity", (0.15 + 0.85 * (cell.accepted + cell.throttled) / top).toFixed(2));
      if (cell.throttled) rect.setAttribute("class", "throttled");
      const title = document.createElementNS(svgNS, "title");
      title.textContent = "partition " + cell.n + ": " + Math.round(cell.accepted) + " accepted, " + Math.round(cell.throttled) + " throttled";
      rect.append(title);
      svg.append(rect);
    }
    fill($("heat"), [svg, el("p", { class: "small" }, summary + "; darker is busier, red cells refused writes.")]);
    $("capacity-status").textContent = "Emulated (" + body.mode + "): " + last.partitions + " partitions; last second " +
      number(Math.round(last.write)) + " write units accepted, " + number(Math.round(last.write_throttled)) + " throttled, " + number(Math.round(last.read)) + " read units.";
    const busiest = [...totals.entries()].sort((a, b) => b[1][0] + b[1][1] - a[1][0] - a[1][1]).slice(0, 8);
    fill($("busiest").tBodies[0], busiest.map(([n, [ok, no]]) => el("tr", {}, el("th", { scope: "row" }, "#" + n), el("td", {}, number(Math.round(ok))), el("td", {}, number(Math.round(no))))));
    show("busiest", busiest.length > 0);
  }

  // -- wiring ----------------------------------------------------------------------------------------------

  $("lookup-form").addEventListener("submit", (event) => {
    event.preventDefault();
    lookUp($("ips").value);
  });
  $("dataset-boxes").addEventListener("change", () => ($("mode").disabled = chosenDatasets().length < 2));
  $("mode").disabled = true;
  $("me-button").addEventListener("click", () => {
    $("ips").value = "me";
    lookUp("me");
  });
  $("changes-more").addEventListener("click", () => showChanges(state.selected, state.changes));
  $("values-form").addEventListener("submit", (event) => {
    event.preventDefault();
    showValues(null);
  });
  $("values-more").addEventListener("click", () => showValues(state.values));
  for (const id of ["value-column", "value-sort"]) {
    $(id).addEventListener("change", () => {
      state.values = null; // a cursor is pinned to the column and order it was made for
      $("values-more").hidden = true;
    });
  }
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) clearTimeout(state.timer);
    else if (Date.now() - state.last >= LOADING_MS) refresh();
    else schedule();
  });
  readIndex();
  refresh();
})();
