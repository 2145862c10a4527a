"""A page of the console in a real browser, watched: what its console and the network said, whatever dialog a
script tried to open, and screenshots of it (the browser tests' ``watched`` fixture, ``tests/browser/conftest.py``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.support import ROOT

ARTIFACTS = Path(os.environ.get("CONSOLE_ARTIFACTS", ROOT / "test-artifacts" / "console"))


class Watched:
    """A page, what its console and the network said, and whatever dialog a script tried to open."""

    def __init__(self, page: Any, api: str) -> None:
        self.page, self.api = page, api
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.requests: list[tuple[float, str]] = []
        self.failed: list[tuple[int, str]] = []  # responses 400 and up
        page.on("console", self._console)
        page.on("response", self._response)
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("dialog", self._dialog)

    def _response(self, response: Any) -> None:
        if response.status >= 400:
            self.failed.append((response.status, response.url))

    def _console(self, message: Any) -> None:
        # Chromium logs every 4xx a fetch gets ("Failed to load resource"): the API's refusals (a NOT_FOUND lookup)
        # are answers the page shows, checked through ``failed`` instead
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            self.errors.append(message.text)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self) -> Any:
        self.page.goto(f"{self.api}/console")
        self.page.wait_for_selector("#dataset-table tbody tr")
        return self.page

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
