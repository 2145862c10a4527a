"""Entry point of the fetch function: the schedule's round, or one dataset's source at once; wired in
``fencepost.bootstrap.fetch_wiring``."""

from __future__ import annotations

from fencepost.bootstrap.fetch_wiring import fetch_function

wired = fetch_function()
handler = wired.handler
