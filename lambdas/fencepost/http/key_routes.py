"""``GET /datasets/{name}/keys/{key}``: one row of a keyed dataset (``core.keyed``), from its live version or the one
live at ``as_of``. The table is the one lookups join (``fencepost.reading.keyed_tables``): read once per container."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from fencepost.core.keyed.keyed_table import normalize
from fencepost.errors import InvalidRequest, NotFound, Unavailable
from fencepost.http.responses import HttpResponse, json_response
from fencepost.model import VersionInfo
from fencepost.reading.joining import Joins
from fencepost.reading.past import parse_past


class KeyReads:
    def __init__(self, joins: Joins, max_age: int) -> None:
        self.joins, self.max_age = joins, max_age

    def answer(self, name: str, key: str, query: Mapping[str, str]) -> HttpResponse:
        past = parse_past(query.get("as_of"), query.get("version"), several=False, now=time.time())
        read = self.joins.read(name, None, None) if past is None else self.joins.read(name, past.instant, past.version)
        if read.table is None or read.pointer is None:
            raise read.error or Unavailable(f"the table of keyed dataset {name!r} cannot be read")
        table, version = read.table, read.pointer.version
        key = _decoded(key)
        normal = normalize(table.form, key)
        if normal is None:
            raise InvalidRequest(f"{key[:80]!r} is no key of dataset {name!r} (its keys are {table.form})")
        head: dict[str, Any] = {"dataset": name, "version": version}
        if past is not None and past.shown is not None:
            head["as_of"] = past.shown
        row = table.rows.get(normal)
        if row is None:
            raise NotFound(f"version {version} of dataset {name!r} has no key {normal!r}", **head, key=normal)
        data = {table.key: normal, **dict(zip(table.columns, row, strict=True))}
        cache = {"Cache-Control": f"public, max-age={self.max_age}"}
        return json_response(200, {**head, "key": normal, "data": data}, cache)


def _decoded(text: str) -> str:
    """The key as the path segment sends it percent-encoded (``Acme%20Corp%2F1`` is ``Acme Corp/1``)."""
    try:
        return unquote(text, errors="strict") if "%" in text else text
    except UnicodeDecodeError:
        raise InvalidRequest("the key is not percent-encoded UTF-8") from None


def ranged(info: VersionInfo) -> VersionInfo:
    """A version whose ranges a route may read (a lookup, a listing); ``InvalidRequest`` for a keyed dataset's (it has
    keys, not ranges)."""
    if info.keyed is not None:
        name = info.dataset
        raise InvalidRequest(
            f"dataset {name!r} is a keyed dataset: read a key at /datasets/{name}/keys/<key>, or join it into a "
            "range dataset's answers (keyed_joins)"
        )
    return info
