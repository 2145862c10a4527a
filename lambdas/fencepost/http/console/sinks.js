// A dataset's sinks (docs/sinks.md): where its live version is pushed (WAF IP sets, a managed prefix list), what
// each holds of which version since when, and its last failure.
import { el, number, when } from "./dom.js";

const NAMES = { waf: "WAF IP sets", prefix_list: "Prefix list" };

function sinkLine(sink) {
  const held =
    sink.version === null
      ? "nothing pushed yet"
      : `version ${sink.version}: ${number(sink.entries)} networks in ${sink.sets.join(", ")}, pushed ` +
        when(sink.pushed_at);
  const failed = sink.error ? el("span", { class: "gate" }, ` · failed ${when(sink.failed_at)}: ${sink.error}`) : null;
  return el("li", { "data-sink": sink.sink }, (NAMES[sink.sink] || sink.sink) + " · " + held, failed);
}

/** The sinks' lines, or null when the folder names none (GET /datasets/{name}'s `sinks`). */
export function sinkList(dataset) {
  const sinks = dataset.sinks || [];
  if (!sinks.length) return null;
  return el("div", { id: "detail-sinks" }, el("p", {}, "Sinks"), el("ul", {}, ...sinks.map(sinkLine)));
}
