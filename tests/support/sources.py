"""A source-fed folder's helpers: a list in Spamhaus DROP's text layout to publish, an address inside one of its
networks, and one round of the fetch function followed by every message the loader gets."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fencepost.bootstrap.fetch_wiring import FetchFunction
from tests.support import LambdaContext
from tests.support.stacks import Stack


def drop_list(networks: Iterable[int]) -> bytes:
    """A list in Spamhaus DROP's text layout: one /20 a line, a comment after ``;``."""
    lines = ["; Spamhaus DROP List 2026/11/26 - (c) 2026 The Spamhaus Project SLU", "; Last-Modified: today"]
    lines += [f"{20 + k // 256}.{k % 256}.0.0/20 ; SBL{100000 + k}" for k in networks]  # never reserved space
    return ("\n".join([*lines, "; EOF"]) + "\n").encode()


def address(k: int) -> str:
    return f"{20 + k // 256}.{k % 256}.7.9"


def check(fetch: FetchFunction, stack: Stack, **event: Any) -> dict[str, str]:
    """One round (or one dataset's check), then every message the loader gets delivered."""
    result = fetch.handler(event, LambdaContext())
    stack.drain()
    return {entry["dataset"]: entry["outcome"] for entry in result["checked"]}
