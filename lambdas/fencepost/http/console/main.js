// Fencepost's console: reads the public API of the origin it is served from and shows it. This module holds the
// page's state, reads the dataset list again and again (which refreshes the other panels), and wires the controls.
import { Refused, api, onUnsigned, problem } from "./api.js";
import { refreshCapacity } from "./capacity.js";
import { markSelected, renderDatasets } from "./datasets.js";
import { forgetValues, moreChanges, openDetail, showDetail, showValues } from "./detail.js";
import { $ } from "./dom.js";
import { refreshJobs } from "./jobs.js";
import { chosenDatasets, lookUp, readIndex, renderChoices, renderDefaultHint } from "./lookup.js";
import { noteRates } from "./rate.js";

const IDLE_MS = 5000; // the dataset list's refresh while nothing loads
const LOADING_MS = 1000; // ... and while something is LOADING, or an enrichment job is queued or running

const state = {
  datasets: [], // as GET /datasets last answered
  selected: null, // the name of the dataset shown in detail
  timer: null, // the next refresh
  busy: false, // a refresh is in flight
  last: 0, // when the last refresh started (ms)
  signed: false, // the API wants signed requests: no refresh any more, every one would be refused
  jobsBusy: false, // an enrichment job was queued or running at the last refresh
};

function schedule() {
  clearTimeout(state.timer);
  if (document.hidden || state.signed) return;
  const loading = state.jobsBusy || state.datasets.some((dataset) => dataset.status === "LOADING");
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
    renderDatasets(state.datasets, state.selected, select);
    renderChoices(state.datasets);
    renderDefaultHint(state.datasets);
    noteRates(state.datasets);
    if (state.selected) showDetail(state, false);
    await refreshCapacity();
    state.jobsBusy = await refreshJobs();
  } catch (error) {
    $("datasets-status").textContent = error.message;
  } finally {
    state.busy = false;
    schedule();
  }
}

function select(name) {
  state.selected = name;
  markSelected(name);
  openDetail(state);
}

onUnsigned(() => (state.signed = true));
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
$("changes-more").addEventListener("click", () => moreChanges(state));
$("values-form").addEventListener("submit", (event) => {
  event.preventDefault();
  showValues(state, false);
});
$("values-more").addEventListener("click", () => showValues(state, true));
for (const id of ["value-column", "value-sort"]) $(id).addEventListener("change", forgetValues);
document.addEventListener("visibilitychange", () => {
  if (document.hidden) clearTimeout(state.timer);
  else if (Date.now() - state.last >= LOADING_MS) refresh();
  else schedule();
});
readIndex().then(() => renderDefaultHint(state.datasets));
refresh();
