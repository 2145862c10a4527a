"""The managed prefix lists folders' sinks may change, read from CDK context (``-c sinkPrefixLists=pl-a,pl-b``);
the permissions they get are in ``infra.sinks``."""

from __future__ import annotations

import re
from typing import Final

from infra.context import ContextGetter, SettingsError, text

_PREFIX_LIST: Final = re.compile(r"pl-[0-9a-f]{8,17}")


def sink_prefix_lists(get: ContextGetter) -> tuple[str, ...]:
    """``-c sinkPrefixLists=pl-a,pl-b``: the managed prefix lists folders' sinks may change."""
    found = tuple(item.strip() for item in text(get, "sinkPrefixLists", "").split(",") if item.strip())
    for item in found:
        if not _PREFIX_LIST.fullmatch(item):
            raise SettingsError(f"sinkPrefixLists must be managed prefix list ids (pl-...), not {item!r}")
    return found
