// Enrichment jobs in the bucket, as GET /enrich answers: each job's state, its parts done of its parts, and once done
// its rows and outputs (GET /enrich/{job}, linked from its name, has the rest). Read only: a job starts when its job
// file is written to the bucket.
import { problem, settled } from "./api.js";
import { $, el, fill, number, say, show, when } from "./dom.js";

const BADGES = { done: "ready", failed: "failed", running: "loading", queued: "loading", waiting: "waiting" };

function partsCell(job) {
  if (job.parts === null || job.parts === undefined) return "—";
  const label = "parts enriched of job " + job.job + ", of " + job.parts;
  const bar = el("progress", { max: Math.max(job.parts, 1), value: job.parts_done || 0, "aria-label": label });
  return el("div", {}, number(job.parts_done) + " of " + number(job.parts), job.state === "running" ? bar : null);
}

function endCell(job) {
  if (job.state === "failed") return el("div", {}, when(job.finished_at), el("div", { class: "reason" }, job.reason));
  return when(job.finished_at);
}

function jobRow(job) {
  const link = el("a", { href: "enrich/" + encodeURIComponent(job.job) }, job.job);
  const state = el("span", { class: "badge " + (BADGES[job.state] || "") }, job.state);
  const rows = job.bad_rows
    ? number(job.rows) + " (" + number(job.bad_rows) + " without an address)"
    : number(job.rows);
  const cells = [link, state, when(job.submitted_at), partsCell(job), rows, number(job.outputs), endCell(job)];
  return el(
    "tr",
    { "data-job": job.job },
    ...cells.map((cell, i) => el(i ? "td" : "th", i ? {} : { scope: "row" }, cell)),
  );
}

/** Reads the first page of jobs and shows it; true while any is queued or running (the page then refreshes sooner). */
export async function refreshJobs() {
  const answer = await settled("enrich");
  if (answer.status !== 200 || !answer.body || !Array.isArray(answer.body.jobs)) {
    say("jobs-status", "The jobs could not be read: " + (answer.error ? answer.error.message : problem(answer)) + ".");
    return false;
  }
  const jobs = answer.body.jobs;
  fill($("job-table").tBodies[0], jobs.map(jobRow));
  show("job-table", jobs.length > 0);
  const busy = jobs.filter((job) => job.state === "running" || job.state === "queued").length;
  const more = answer.body.next ? " (the first " + jobs.length + ": GET /enrich?cursor= pages on)" : "";
  const text = jobs.length
    ? jobs.length + " jobs" + more + (busy ? ", " + busy + " queued or running" : "")
    : "No enrichment jobs in the bucket";
  say("jobs-status", text + ".");
  return busy > 0;
}
