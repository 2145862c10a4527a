// The capacity emulator's last minute (make run only: GET /local/capacity is the local stack's, not the service's):
// a heat map of write units a second on each partition, and the busiest partitions.
import { api } from "./api.js";
import { $, el, fill, number, show, svg } from "./dom.js";

let emulated = null; // null: not known yet; false: deployed, no emulator (never asked again); true: shown

/** Reads the emulator's figures and shows them; a deployed API answers 404, and the section stays hidden. */
export async function refreshCapacity() {
  if (emulated === false) return;
  const answer = await api("local/capacity").catch(() => null);
  if (answer && answer.status === 404) {
    emulated = false;
    return;
  }
  if (!answer || answer.status !== 200 || !answer.body || !("emulated" in answer.body)) return; // asked again later
  emulated = true;
  $("capacity").hidden = false;
  if (!answer.body.emulated) {
    $("capacity-status").textContent = "DynamoDB Local has no partitions: " + answer.body.hint + ".";
  } else renderHeat(answer.body);
}

function cellsOf(seconds, last) {
  const cells = [];
  const totals = new Map(); // partition: [accepted, throttled] a second over the last 10 seconds
  for (const second of seconds) {
    for (const p of second.by_partition) {
      if (p.index) continue;
      const accepted = p.write || 0;
      const throttled = p.write_throttled || 0;
      cells.push({ n: p.number, t: second.second, accepted, throttled });
      if (second.second > last.second - 10) {
        const sum = totals.get(p.number) || [0, 0];
        totals.set(p.number, [sum[0] + accepted / 10, sum[1] + throttled / 10]);
      }
    }
  }
  return { cells, totals };
}

function heatMap(cells, first, summary) {
  const numbers = [...new Set(cells.map((c) => c.n))].sort((a, b) => a - b);
  const top = Math.max(1, ...cells.map((c) => c.accepted + c.throttled));
  const map = svg("svg", { viewBox: "0 0 300 " + Math.max(8, numbers.length * 8), role: "img", "aria-label": summary });
  for (const cell of cells) {
    const title = `partition ${cell.n}: ${Math.round(cell.accepted)} accepted, ${Math.round(cell.throttled)} throttled`;
    const rect = {
      x: (cell.t - first) * 5,
      y: numbers.indexOf(cell.n) * 8,
      width: 5,
      height: 7,
      "fill-opacity": (0.15 + (0.85 * (cell.accepted + cell.throttled)) / top).toFixed(2),
      class: cell.throttled ? "throttled" : null,
    };
    map.append(svg("rect", rect, svg("title", {}, title)));
  }
  return map;
}

function renderHeat(body) {
  const table = body.seconds.length ? body.seconds[body.seconds.length - 1].table : null;
  const seconds = body.seconds.filter((s) => s.table === table).slice(-60);
  if (!seconds.length) {
    $("capacity-status").textContent = "Emulated (" + body.mode + "): no request in the last two minutes.";
    return;
  }
  const last = seconds[seconds.length - 1];
  const { cells, totals } = cellsOf(seconds, last);
  const partitions = `the table's ${last.partitions} partitions (rows)`;
  const summary = `Write units a second on each of ${partitions} over the last 60 seconds (columns)`;
  const legend = el("p", { class: "small" }, summary + "; darker is busier, red cells refused writes.");
  fill($("heat"), [heatMap(cells, last.second - 59, summary), legend]);
  const units = (value) => number(Math.round(value));
  const accepted = `${units(last.write)} write units accepted, ${units(last.write_throttled)} throttled`;
  const status = `Emulated (${body.mode}): ${last.partitions} partitions; last second ${accepted}`;
  $("capacity-status").textContent = `${status}, ${units(last.read)} read units.`;
  const busiest = [...totals.entries()].sort((a, b) => b[1][0] + b[1][1] - a[1][0] - a[1][1]).slice(0, 8);
  const row = ([n, [ok, no]]) =>
    el("tr", {}, el("th", { scope: "row" }, "#" + n), el("td", {}, units(ok)), el("td", {}, units(no)));
  fill($("busiest").tBodies[0], busiest.map(row));
  show("busiest", busiest.length > 0);
}
