"""Entry point of the loader function: messages from its two queues (control and data), and the scheduled sweep;
wired in ``fencepost.bootstrap.loader_wiring``."""

from __future__ import annotations

from fencepost.bootstrap.loader_wiring import loader_function

wired = loader_function()
handler = wired.handler
