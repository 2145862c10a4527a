"""``GET /datasets/{name}/values/{column}`` and ``.../values/{column}/{value}``: the distinct values of an indexed
column, with the pieces, IPv4 addresses and IPv6 /64s each covers, from the column's index directory
(``core.versions.value_index``: read once per container, then kept), so a page costs no read at all once it is held.

Sorted by value (the default), or by pieces or IPv4 addresses, most first (ties by value). The cursor pins the
version, the column and the order, as ``GET /ranges`` cursors do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final
from urllib.parse import unquote

from fencepost.core.versions.value_index import Directory, ValueStats
from fencepost.errors import InvalidRequest, NotFound, check_dataset_name
from fencepost.http.paging import decode_pinned, encode_token, pin_digest
from fencepost.http.parameters import page_limit
from fencepost.http.range_routes import head_of, past_of
from fencepost.http.responses import NO_STORE, HttpResponse, json_response
from fencepost.http.reverse_params import MAX_WHERE_CHARS, SORTS
from fencepost.reading.indexes import ValueIndexes
from fencepost.reading.past import History

_TAG: Final = "values"
ORDERS_KEPT: Final = 4  # sorted copies of directories held (a copy is a list of references, not of values)
_KEYS: Final = {
    "pieces": lambda stats: (-stats.pieces, stats.value),
    "ipv4": lambda stats: (-stats.ipv4_addresses, stats.value),
}


class ValueListing:
    """The values of indexed columns, read through the lookup's caches and the versions' index directories."""

    def __init__(self, history: History, indexes: ValueIndexes) -> None:
        self.history, self.indexes = history, indexes
        self._orders: dict[tuple[str, int, str, str], list[ValueStats]] = {}  # the last few orders asked for

    def answer_all(self, dataset: str, column: str, query: Mapping[str, str]) -> HttpResponse:
        check_dataset_name(dataset)
        column = _path_text(column, "column")
        sort = query.get("sort", "value")
        if sort not in SORTS:
            raise InvalidRequest(f"invalid sort {sort[:20]!r}: one of {', '.join(SORTS)}")
        limit = page_limit(query)
        token = query.get("cursor")
        digest = pin_digest(column, sort)
        found = None if token is None else decode_pinned(token, _TAG, dataset, digest)
        if token is not None and found is None:
            raise InvalidRequest("invalid cursor: pass the 'next' of the previous page unchanged, with the same query")
        version, position = found if found is not None else (None, 0)
        past = past_of(query)
        info = self.history.listed(dataset, version, past)
        directory = self.indexes.directory(info, column)
        ordered = self._ordered((dataset, info.version, column, sort), directory)
        if position > len(ordered):
            raise InvalidRequest("invalid cursor: pass the 'next' of the previous page unchanged")
        page = ordered[position : position + limit]
        after = position + len(page)
        following = encode_token([_TAG, dataset, info.version, digest, after]) if after < len(ordered) else None
        body = {**head_of(info, past), "column": column, "sort": sort}
        body |= {"distinct": len(ordered), "values": [stats.body() for stats in page], "next": following}
        return json_response(200, body, NO_STORE)

    def answer_one(self, dataset: str, column: str, value: str, query: Mapping[str, str]) -> HttpResponse:
        check_dataset_name(dataset)
        column, value = _path_text(column, "column"), _path_text(value, "value")
        past = past_of(query)
        info = self.history.listed(dataset, None, past)
        stats = self.indexes.directory(info, column).find(value)
        if stats is None:
            raise NotFound(f"no range of dataset {dataset!r} (version {info.version}) has {column} {value[:80]!r}")
        body = {**head_of(info, past), "column": column, **stats.body()}
        return json_response(200, body, NO_STORE)

    def _ordered(self, key: tuple[str, int, str, str], directory: Directory) -> list[ValueStats]:
        sort = key[3]
        if sort == "value":
            return directory.values
        found = self._orders.get(key)
        if found is None:
            found = sorted(directory.values, key=_KEYS[sort])
            if len(self._orders) >= ORDERS_KEPT:
                self._orders.pop(next(iter(self._orders)))
            self._orders[key] = found
        return found


def _path_text(text: str, name: str) -> str:
    """A path segment as sent: percent-decoded, within the bound of a ``where``."""
    try:
        decoded = unquote(text, errors="strict") if "%" in text else text
    except UnicodeDecodeError:
        raise InvalidRequest(f"the {name} is not percent-encoded UTF-8") from None
    if len(decoded) > MAX_WHERE_CHARS:
        raise InvalidRequest(f"the {name} holds {len(decoded):,} characters; at most {MAX_WHERE_CHARS:,}")
    return decoded
