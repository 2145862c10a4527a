"""The console in a real browser, against the stack ``make run`` starts: what a person sees and does."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import requests
from playwright.sync_api import expect

from local.state import CREDENTIALS
from tests.publisher import Publisher
from tests.support import ROOT, V4_FILE, read_tsv
from tests.support.browser import Watched
from tests.support.sources import drop_list
from tests.support.stacks import Running

SAMPLE = [line.split("\t") for line in (ROOT / "samples" / "asn-sample.tsv").read_text().splitlines()]


def _row(page: Any, name: str) -> Any:
    return page.locator(f'#dataset-table tbody tr[data-name="{name}"]')


def _status(page: Any, name: str) -> str:
    row = _row(page, name)
    return str(row.locator(".badge").inner_text()) if row.count() else ""


def _aws_cp(stack: Running, path: Path, key: str) -> None:
    """``aws s3 cp`` into the local bucket, as the README shows (``source local/env.sh``)."""
    aws, endpoint = Path(sys.executable).parent / "aws", f"http://127.0.0.1:{stack.aws_port}"
    command = [str(aws), "--endpoint-url", endpoint, "s3", "cp", str(path), f"s3://ranges/{key}"]
    env = {**os.environ, **CREDENTIALS}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr


def _tsv(path: Path, rows: list[list[str]]) -> Path:
    path.write_text("".join("\t".join(row) + "\n" for row in rows))
    return path


def test_the_sample_dataset_is_ready_and_a_lookup_shows_its_data(watched: Watched) -> None:
    page = watched.open()
    assert _status(page, "sample").endswith("READY")
    start, _, asn, country, description = SAMPLE[1]
    page.fill("#ips", start)
    page.check('#dataset-boxes input[value="sample"]')
    page.click("#lookup-button")
    row = page.locator("#answers tbody tr")
    row.wait_for()
    cells = row.locator("td").all_inner_texts()
    assert cells[0] == start
    assert asn in cells
    assert country in cells
    assert description in cells
    # The same query as JSON (a link to the API itself) and as a curl line
    link = page.get_attribute("#json-link", "href")
    assert link == f"{watched.api}/lookup?ip={start}&dataset=sample"
    assert requests.get(link, timeout=10).json()["data"]["description"] == description
    assert page.input_value("#curl-line") == f"curl '{link}'"
    watched.shot("lookup")


def test_a_first_lookup_with_nothing_ticked_answers_from_the_default_dataset(watched: Watched) -> None:
    page = watched.open()
    # The hint names the service's default dataset (GET /), which make run serves: its sample
    expect(page.locator("#dataset-hint")).to_have_text("None chosen: the service's default dataset, sample.")
    assert page.locator("#dataset-boxes input:checked").count() == 0
    page.fill("#ips", "8.8.8.8")
    page.click("#lookup-button")
    page.locator("#answers tbody tr").wait_for()
    cells = page.locator("#answers tbody tr td").all_inner_texts()
    assert (cells[:3], "15169" in cells) == (["8.8.8.8", "found", "sample"], True)
    assert page.get_attribute("#json-link", "href") == f"{watched.api}/lookup?ip=8.8.8.8"
    assert re.fullmatch(r"Read at \d\d:\d\d:\d\d UTC\.", page.inner_text("#datasets-read"))  # UTC, as every time


def test_a_pasted_list_of_50_addresses_shows_50_rows_the_missing_ones_marked(watched: Watched, stack: Running) -> None:
    addresses = [row[0] for row in SAMPLE[:45]] + [f"10.0.0.{n}" for n in range(5)]
    expected = requests.post(f"{stack.api}/lookup", json={"ips": addresses, "dataset": "sample"}, timeout=10).json()
    missing = sum(1 for result in expected["results"] if "error" in result)
    assert missing >= 5
    page = watched.open()
    page.fill("#ips", "\n".join(addresses))
    page.check('#dataset-boxes input[value="sample"]')
    page.click("#lookup-button")
    page.wait_for_selector("#answers tbody tr")
    assert page.locator("#answers tbody tr").count() == 50
    assert page.locator("#answers tbody tr.miss").count() == missing
    assert page.locator("#answers tbody tr.miss .badge").first.inner_text().endswith("not found")  # words, not colour
    assert page.inner_text("#lookup-status") == "50 answers."
    assert "-X POST" in page.input_value("#curl-line")
    watched.shot("lookup-list")


def test_an_upload_shows_loading_then_ready_without_a_reload(watched: Watched, stack: Running, tmp_path: Path) -> None:
    page = watched.open()
    page.evaluate("window.notReloaded = true")
    rows = read_tsv(V4_FILE, 120_000)[100_000:120_000]
    _aws_cp(stack, _tsv(tmp_path / "ranges.tsv", rows), "uploaded/ranges.tsv")
    seen: list[str] = []
    deadline, shot = time.monotonic() + 240, False
    while time.monotonic() < deadline:
        status = _status(page, "uploaded")
        if status and (not seen or seen[-1] != status):
            seen.append(status)
        bar = _row(page, "uploaded").locator("progress[max]")
        if status.endswith("LOADING") and not shot and bar.count():
            assert int(bar.get_attribute("max") or 0) >= len(rows)  # the build's items, known once it writes
            watched.shot("loading")
            shot = True
            _row(page, "uploaded").locator("button").click()  # its detail, whose chart follows the writing
        if status.endswith("READY"):
            break
        page.wait_for_timeout(100)
    assert [status.split()[-1] for status in seen] == ["LOADING", "READY"]
    assert shot, "no progress bar was seen while the build wrote"
    assert page.evaluate("window.notReloaded") is True
    assert _row(page, "uploaded").locator("td").nth(2).inner_text() == f"{len(rows):,}"
    # While it loaded, the list was read about once a second (the listing itself is cached up to 5 s per container)
    times = [when for when, url in watched.requests if url.endswith("/datasets")]
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert min(gaps) < 1.6
    watched.shot("ready")
    # The load chart, with its axes: items written a second (0 to the most seen) over seconds (0 to the span)
    texts = page.locator("#rate svg text").all_text_contents()
    assert [re.sub(r"\d[\d,]*", "N", text) for text in texts[:4]] == ["N", "N", "N s", "N s"], texts
    assert texts[4:] == ["seconds since this page first saw the build write", "items written / s"]
    assert (page.locator("#rate svg line.axis").count(), page.locator("#rate svg polyline").count()) == (2, 1)
    # The emulator's last minute: the load's writes on the table's partitions
    page.locator("#busiest tbody tr").first.wait_for()
    assert page.locator("#heat rect").count() > 0
    assert "partitions; last second" in page.inner_text("#capacity-status")
    page.locator("#capacity").scroll_into_view_if_needed()
    watched.shot("capacity")


def test_a_bad_file_shows_failed_with_its_line_and_reason(watched: Watched, stack: Running, tmp_path: Path) -> None:
    rows = [["1.0.0.0", "1.0.0.255", "AU"], ["1.0.1.0", "1.0.1.255", "CN"], ["1.0.2.0", "not-an-address", "JP"]]
    _aws_cp(stack, _tsv(tmp_path / "bad.tsv", rows), "broken/bad.tsv")
    page = watched.open()
    page.wait_for_selector('#dataset-table tr[data-name="broken"] .badge.failed', timeout=60_000)
    assert "invalid rows" in _row(page, "broken").inner_text()
    _row(page, "broken").locator("button").click()
    problems = page.locator("#problems tbody tr")
    problems.first.wait_for()
    found = [problems.nth(n).locator("td").all_inner_texts() for n in range(problems.count())]
    object_key, line, reason = found[1]
    assert (object_key, line) == ("broken/bad.tsv", "3")
    assert reason.startswith("end 'not-an-address' is not an IPv4 or IPv6 address")
    watched.shot("failed")


def test_a_shrunken_file_shows_the_gate_that_refused_it_and_its_figures(
    watched: Watched, stack: Running, tmp_path: Path
) -> None:
    rows = read_tsv(V4_FILE, 2_000)[:2_000]
    _aws_cp(stack, _tsv(tmp_path / "feed.tsv", rows), "feed/feed.tsv")
    stack.wait_ready("feed", 1)
    _aws_cp(stack, _tsv(tmp_path / "feed.tsv", rows[:200]), "feed/feed.tsv")  # 90% gone: the default gate refuses it
    page = watched.open()
    page.wait_for_selector('#dataset-table tr[data-name="feed"] .badge.failed', timeout=60_000)
    _row(page, "feed").locator("button").click()
    expect(page.locator("#detail-load .gate")).to_have_text("Refused by a gate: max_removed_percent")
    figures = dict(
        zip(
            page.locator("#detail-load table.figures th").all_inner_texts(),
            page.locator("#detail-load table.figures td").all_inner_texts(),
            strict=True,
        )
    )
    assert (figures["removed"], figures["unchanged"], figures["IPv4 pieces removed"]) == (
        "1,800",
        "200",
        "90 % of 2,000",
    )
    assert (figures["IPv4 addresses added"], figures["IPv6 addresses added"], figures["reserved space"]) == (
        "0 %",
        "—",  # the live version answers no IPv6 address: growth from nothing has no share
        "none",
    )
    assert "max_removed_percent allows" in page.inner_text("#problems")
    expect(page.locator("#diff-status")).to_contain_text("1,800 removed")
    watched.shot("gate-refused")


def test_a_source_fed_folder_shows_its_source_and_next_check(watched: Watched, stack: Running) -> None:
    with Publisher() as site:
        site.publish("/drop.txt", drop_list(range(300)))
        source = {"url": site.url("/drop.txt"), "every": "1h"}
        stack.s3.put_object(Bucket="ranges", Key="drop/_source.json", Body=json.dumps(source).encode())
        stack.wait_ready("drop", 1)
        page = watched.open()
        cell = _row(page, "drop").locator("td").nth(5)
        expect(cell).to_contain_text("CHANGED")
        expect(cell).to_contain_text("next check")
        _row(page, "drop").locator("button").click()
        facts = page.locator("#detail-source tr")
        expect(facts.filter(has_text="address")).to_contain_text(site.url("/drop.txt"))
        expect(facts.filter(has_text="every")).to_contain_text("3600 s")
        watched.shot("source")


def test_a_dataset_emptied_while_open_leaves_the_list_and_closes(watched: Watched, stack: Running) -> None:
    stack.s3.put_object(Bucket="ranges", Key="gone/a.tsv", Body="".join("\t".join(r) + "\n" for r in SAMPLE).encode())
    stack.wait_ready("gone", 1)
    page = watched.open()
    _row(page, "gone").locator("button").click()
    expect(page.locator("#detail")).to_be_visible()
    stack.s3.delete_object(Bucket="ranges", Key="gone/a.tsv")
    expect(_row(page, "gone")).to_have_count(0, timeout=60_000)
    expect(page.locator("#detail")).to_be_hidden()


def test_markup_in_the_data_shows_as_text_and_runs_nothing(watched: Watched, stack: Running, tmp_path: Path) -> None:
    markup = ["<img src=x onerror=alert(1)>", "<script>alert(2)</script>"]
    stack.s3.put_object(Bucket="ranges", Key="marked/_settings.json", Body=b'{"columns": ["note"], "index": ["note"]}')
    rows = [["1.2.3.0", "1.2.3.255", markup[0]], ["1.2.4.0", "1.2.4.255", markup[1]]]
    _aws_cp(stack, _tsv(tmp_path / "marked.tsv", rows), "marked/marked.tsv")
    # the settings alone may be built first when the copy starts late (a busy machine): wait for the rows
    stack.wait_ready("marked", None, ranges=2)
    page = watched.open()
    page.fill("#ips", "1.2.3.4 1.2.4.4")
    page.check('#dataset-boxes input[value="marked"]')
    page.click("#lookup-button")
    page.wait_for_selector("#answers tbody tr")
    assert page.locator("#answers tbody td").all_inner_texts().count(markup[0]) == 1
    assert page.locator("#answers tbody td").all_inner_texts().count(markup[1]) == 1
    # Its values too: the indexed column's values are listed as text
    _row(page, "marked").locator("button").click()
    page.wait_for_selector("#value-column option", state="attached")
    page.click("#values-form button")
    page.wait_for_selector("#values tbody tr")
    assert sorted(page.locator("#values tbody th").all_inner_texts()) == sorted(markup)
    assert page.locator("main img, main script").count() == 0
    page.wait_for_timeout(500)  # an onerror would have fired by now
    watched.shot("markup-as-text")


def test_a_hidden_page_stops_refreshing_and_a_visible_one_refreshes(watched: Watched) -> None:
    page = watched.open()
    hide = "Object.defineProperty(document, 'hidden', {value: %s, configurable: true});"
    page.evaluate(hide % "true" + "document.dispatchEvent(new Event('visibilitychange'))")
    before = len([url for _, url in watched.requests if url.endswith("/datasets")])
    page.wait_for_timeout(6000)
    assert len([url for _, url in watched.requests if url.endswith("/datasets")]) == before
    page.evaluate(hide % "false" + "document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_timeout(7500)
    times = [when for when, url in watched.requests if url.endswith("/datasets")]
    assert len(times) >= before + 2, times


def test_narrow_screens_keyboard_and_labels(watched: Watched) -> None:
    page = watched.open()
    page.set_viewport_size({"width": 320, "height": 800})
    page.fill("#ips", "2001:db8::1 1.1.1.1 8.8.8.8")
    page.check('#dataset-boxes input[value="sample"]')
    page.click("#lookup-button")
    page.wait_for_selector("#answers tbody tr")
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    watched.shot("narrow")
    unlabelled = page.evaluate(
        "[...document.querySelectorAll('input, select, textarea, button')]"
        ".filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())"
        ".map(e => e.id || e.outerHTML)"
    )
    assert unlabelled == []
    # Keyboard only: into the addresses, then Tab to the button and Enter
    page.set_viewport_size({"width": 1280, "height": 900})
    page.fill("#ips", "")
    page.focus("#ips")
    page.keyboard.type(SAMPLE[2][0])
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "lookup-button":
            break
    page.keyboard.press("Enter")
    expect(page.locator("#lookup-status")).to_have_text("1 answer.")


def test_a_front_that_wants_signed_requests_is_explained(watched: Watched) -> None:
    """Behind ``auth=iam`` API Gateway refuses unsigned requests with a bare 403; the page says why and what to do."""
    page = watched.page
    page.route("**/datasets", lambda route: route.fulfill(status=403, body='{"message":"Forbidden"}'))
    page.goto(f"{watched.api}/console")
    page.wait_for_selector("#notice:not([hidden])")
    assert "auth=iam" in page.inner_text("#notice")
    assert "signing proxy" in page.inner_text("#notice")
    watched.shot("signed-requests")
