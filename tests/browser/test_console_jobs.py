"""The console's enrichment jobs in a real browser, against the stack ``make run`` starts: jobs uploaded to the
bucket as a user uploads them appear with their state, a job run by the loader until it is done with its rows and
outputs, one that cannot run as failed with its reason, inputs without a job file as waiting."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import expect

from tests.support import ROOT
from tests.support.browser import Watched
from tests.support.stacks import Running

BUCKET = "ranges"  # make run's
ADDRESSES = [line.split("\t")[0] for line in (ROOT / "samples" / "asn-sample.tsv").read_text().splitlines()[1:41]]


def _put(stack: Running, key: str, body: str) -> None:
    stack.s3.put_object(Bucket=BUCKET, Key=key, Body=body.encode())


def test_jobs_in_the_bucket_appear_with_their_state(watched: Watched, stack: Running) -> None:
    page = watched.open()

    def row(job: str) -> Any:
        return page.locator(f'#job-table tbody tr[data-job="{job}"]')

    expect(page.locator("#jobs-status")).to_have_text("No enrichment jobs in the bucket.")
    _put(stack, "_enrich/later/in/a.txt", "8.8.8.8\n")
    _put(stack, "_enrich/broken/in/a.txt", "8.8.8.8\n")
    _put(stack, "_enrich/broken/job.json", json.dumps({"datasets": ["nothing"]}))
    _put(stack, "_enrich/sampled/in/a.txt", "".join(address + "\n" for address in [*ADDRESSES, "no address"]))
    _put(stack, "_enrich/sampled/job.json", json.dumps({"datasets": ["sample"]}))

    expect(row("sampled").locator(".badge")).to_have_text("done", timeout=60_000)
    cells = row("sampled").locator("td")
    expect(cells.nth(2)).to_have_text("1 of 1")
    expect(cells.nth(3)).to_have_text("41 (1 without an address)")
    expect(cells.nth(4)).to_have_text("1")
    expect(row("broken").locator(".badge")).to_have_text("failed", timeout=30_000)
    expect(row("broken").locator(".reason")).to_contain_text("nothing")
    expect(row("later").locator(".badge")).to_have_text("waiting")
    expect(page.locator("#jobs-status")).to_have_text("3 jobs.")
    # in the bucket's order of their names; each name links to the job's whole status
    assert page.locator("#job-table tbody tr").evaluate_all("rows => rows.map(r => r.dataset.job)") == [
        "broken",
        "later",
        "sampled",
    ]
    link = row("sampled").locator("a")
    assert link.get_attribute("href") == "enrich/sampled"
    status, body = stack.get("/enrich/sampled")
    assert (status, body["state"], body["rows"], body["bad_rows"]) == (200, "done", 41, 1)
    watched.shot("jobs")
