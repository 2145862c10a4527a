"""Pausing Python's cyclic garbage collector around work that builds millions of objects and no reference cycles:
a build's rows (``loading.building``), a MaxMind DB's search tree (``core.versions.mmdb_export``), and a
function's cold start (``handlers``)."""

from __future__ import annotations

import contextlib
import gc
import os
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


@contextlib.contextmanager
def cold_start() -> Iterator[None]:
    """Import and wire a function without collections, then freeze what that made.

    A cold start makes hundreds of thousands of objects (boto3's models, Powertools, the app) that live as long as
    the container; the full collections its allocations set off walk them all (about 25 ms of the lookup module's
    import, make bench section 3). On Lambda (``AWS_LAMBDA_FUNCTION_NAME`` set) they are then frozen
    (``gc.freeze``): never walked again by the collections of later invocations either. Elsewhere (tests, the local
    stack, which import a handler module more than once) nothing is frozen, so a module imported again can be freed.
    """
    with gc_paused():
        yield
        if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
            gc.freeze()
