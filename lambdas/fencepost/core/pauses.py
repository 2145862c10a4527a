"""Pausing Python's cyclic garbage collector around work that builds millions of objects and no reference cycles:
a build's rows (``loading.planning``), a MaxMind DB's search tree (``core.formats.mmdb.output``)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while the work holds millions of objects.

    Its full collections would walk every live object again and again (they slow planning several times over, and
    a MaxMind DB of a million records more than that), and neither creates reference cycles: reference counting
    frees everything they drop.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
