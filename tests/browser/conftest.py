"""Browser tests of the console: Playwright driving headless Chromium (Debian's ``chromium``, or ``CHROMIUM=path``)
against ``python -m local``, the stack ``make run`` starts (``CAPACITY=on-demand-new``: the emulated partitions).

Skipped, with the reason in pytest's summary, when Chromium or Playwright is missing; CI installs Chromium
(``.ci/run``), so there they always run. Screenshots of each state go to ``test-artifacts/console/``
(``CONSOLE_ARTIFACTS`` to move them).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import Watched
from tests.support.stacks import Running
from tests.support.stacks import start as _start
from tests.support.stacks import stop as _stop

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
# Headless, and none of Chromium's own traffic (this machine's network is closed: it would be refused, many at a time)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def _missing() -> str | None:
    if CHROMIUM is None or not Path(CHROMIUM).is_file():
        return "no Chromium: install Debian's chromium package (apt install chromium) or set CHROMIUM=<path>"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (make install installs it from requirements/dev.txt)"
    return None


MISSING = _missing()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if MISSING is None:
        return
    if os.environ.get("CI") == "true":  # .ci/run installs Chromium: a CI run that cannot drive it fails
        raise pytest.UsageError(f"CI must run the browser tests: {MISSING}")
    for item in items:
        if "tests/browser/" in str(item.path):
            item.add_marker(pytest.mark.skip(reason=f"browser tests skipped: {MISSING}"))


# One stack and one Chromium for every browser file: they run on one worker together (``tests.support.ordering``),
# each in datasets and bucket folders of its own. Package-scoped: both end after the last browser test, instead of
# idling (about 4% of a core) until the worker's session ends.
@pytest.fixture(scope="package")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    # make run CAPACITY=on-demand-new: DynamoDB's partitions emulated, which the console shows
    running = _start(tmp_path_factory.mktemp("console"), "--capacity", "on-demand-new")
    try:
        running.wait_ready("sample", 1)
        yield running
    finally:
        output = _stop(running)
        assert f"Console         {running.api}/console" in output


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=list(FLAGS))
        yield launched
        launched.close()


@pytest.fixture
def watched(browser: Any, stack: Running) -> Iterator[Watched]:
    import time

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    seen = Watched(page, stack.api)
    page.on("request", lambda request: seen.requests.append((time.monotonic(), request.url)))
    yield seen
    context.close()
    assert seen.errors == [], "the page logged errors"
    assert [(status, url) for status, url in seen.failed if "/console" in url or status >= 500] == []
    assert seen.dialogs == [], "a script opened a dialog"
