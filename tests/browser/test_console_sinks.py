"""The console's dataset detail shows each sink's last push: the version, its networks and the IP sets that hold
them (here pushed by the local stack's loader to moto's AWS WAF)."""

from __future__ import annotations

import json
import time

from playwright.sync_api import expect

from tests.support import ROOT
from tests.support.browser import Watched
from tests.support.stacks import Running

SAMPLE = (ROOT / "samples" / "asn-sample.tsv").read_text()


def test_the_detail_shows_each_sinks_last_push(watched: Watched, stack: Running) -> None:
    settings = {"columns": ["asn", "country", "name"], "sinks": {"waf": True}}
    stack.s3.put_object(Bucket="ranges", Key="pushed/_settings.json", Body=json.dumps(settings).encode())
    stack.s3.put_object(Bucket="ranges", Key="pushed/asn.tsv", Body=SAMPLE.encode())
    stack.wait_ready("pushed", 1)
    deadline = time.monotonic() + 60
    while not (sinks := stack.get("/datasets/pushed")[1]["sinks"]) or sinks[0]["version"] != 1:
        assert time.monotonic() < deadline, sinks
        time.sleep(0.5)
    (waf,) = sinks
    page = watched.open()
    page.locator('#dataset-table tbody tr[data-name="pushed"]').locator("button").click()
    line = page.locator('#detail-sinks li[data-sink="waf"]')
    expect(line).to_contain_text(f"WAF IP sets · version 1: {waf['entries']:,} networks in fencepost-pushed-v4-1")
    watched.shot("sinks")
