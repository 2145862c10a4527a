"""The console's dataset detail shows the live version's dates: when it was built, and its data's own date as its
publisher states it (here: a date in the file's name), or that none is stated."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.support import ROOT
from tests.support.browser import Watched
from tests.support.stacks import Running

SAMPLE = (ROOT / "samples" / "asn-sample.tsv").read_text()
KEY = "dated/iptoasn-ip2country-v4-20241107.tsv"


def test_the_detail_shows_when_the_live_version_was_built_and_its_datas_own_date(
    watched: Watched, stack: Running
) -> None:
    stack.s3.put_object(Bucket="ranges", Key=KEY, Body=SAMPLE.encode())
    stack.wait_ready("dated", 1)
    built = stack.get("/datasets/dated")[1]["built_at"]
    page = watched.open()
    page.locator('#dataset-table tbody tr[data-name="dated"]').locator("button").click()
    dates = page.locator("#detail-dates")
    expect(dates).to_contain_text("Live version built " + built.replace("T", " ").replace("+00:00", " UTC"))
    expect(dates).to_contain_text(f"its data dated 2024-11-07 (name: {KEY})")
    page.locator('#dataset-table tbody tr[data-name="sample"]').locator("button").click()
    expect(page.locator("#detail-dates")).to_contain_text("its data's date not stated by its publisher")
    watched.shot("dates")
