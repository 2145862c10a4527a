"""Entry point of the lookup function (API Gateway HTTP API, payload format 2.0); wired in
``fencepost.bootstrap.lookup_wiring``."""

from __future__ import annotations

from fencepost.core.pauses import cold_start

with cold_start():
    from fencepost.bootstrap.lookup_wiring import lookup_function

    wired = lookup_function()
handler = wired.handler
