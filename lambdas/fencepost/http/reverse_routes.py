"""``GET /ranges?where=<column>:<value>``: the pieces of a version whose column holds a value, in address order,
a page at a time, as ranges (JSON), as the fewest CIDR networks (``format=cidr``), or as text, one network a line
(``format=text`` or ``Accept: text/plain``; the next page's cursor in the ``Next-Cursor`` header).

A page is one ranged GET of the column's value index (``core.versions.value_index``), from the member where the value
(or ``within``, or the cursor) starts, and no DynamoDB read besides the live pointer and version the lookups already
cache. The cursor pins the version, the column and the value: it pages on while that version is kept. As networks,
touching pieces are merged first, and a page never ends inside such a run.

A column a keyed join adds (``as_name``) is read through the index of the join's ``on`` column
(``http.joined_where``): several values of it, their pieces value after value (each value's in address order), a
GET for each value a page reads from (at most ``MAX_VALUES_READ``, the next page reading on from the next value);
its cursor pins the keyed version too, so a page never mixes two of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from fencepost.core.space.addresses import V4, V6
from fencepost.core.space.networks import cidrs, merge_touching, touches
from fencepost.core.versions.value_index import ValueStats, parse_line
from fencepost.core.versions.where_clause import Where, split_where
from fencepost.errors import InvalidRequest, ResponseTooLarge, Unavailable
from fencepost.http.budget import ResponseBudget, cost
from fencepost.http.joined_where import MAX_VALUES_READ, Selection, Selections
from fencepost.http.paging import (
    MAX_CURSOR_CHARS,
    ListingError,
    Within,
    decode_pins,
    encode_token,
    parse_limit,
    parse_within,
    pin_digest,
)
from fencepost.http.range_routes import head_of, past_of
from fencepost.http.responses import NO_STORE, HttpResponse, json_text, text_response, utf8_text
from fencepost.http.reverse_params import FORMATS, MAX_WHERE_CHARS, NEXT_CURSOR
from fencepost.model import VersionInfo
from fencepost.reading.indexes import ValueIndexes
from fencepost.reading.joining import Joins
from fencepost.reading.past import History

_TAG: Final = "where"
Run = list[int]  # family, first, last, the index line it starts at


def parse_where(text: str) -> Where:
    """``<column>:<value>``, split at the first colon (a value may hold colons, or be empty)."""
    where = split_where(text)
    if where is None:
        raise InvalidRequest(f"invalid where {text[:80]!r}: give <column>:<value>, such as country:AU")
    if len(text) > MAX_WHERE_CHARS:
        raise InvalidRequest(f"where holds {len(text):,} characters; at most {MAX_WHERE_CHARS:,}")
    if not text.isascii() and utf8_text(text) != text:  # a lone surrogate: no stored value, and no digest, has one
        raise InvalidRequest("invalid where: it holds text that is not valid Unicode (a lone surrogate)")
    return where


def _digest(where: Where) -> str:
    """What a cursor holds of the column and value."""
    return pin_digest(where.column, where.value)


def _cursor(token: str, dataset: str, where: Where) -> tuple[int, ...]:
    """The version, index line and (a joined column's) keyed version a cursor of this request names."""
    found = decode_pins(token, _TAG, dataset, _digest(where), 3) or decode_pins(token, _TAG, dataset, _digest(where), 2)
    if found is None:
        raise InvalidRequest("invalid cursor: pass the 'next' of the previous page unchanged, with the same query")
    return found


@dataclass(slots=True)
class _Request:
    dataset: str
    where: Where
    within: Within
    limit: int
    form: str
    cursor: tuple[int, ...] | None


class WhereListing:
    """Pages of reverse lookups, read through the lookup's caches and the version's value index."""

    def __init__(self, history: History, indexes: ValueIndexes, joins: Joins, budget: int) -> None:
        self.history, self.indexes, self.budget = history, indexes, budget
        self.selections = Selections(history, indexes, joins)

    def answer(self, dataset: str, query: Mapping[str, str], accept: str = "") -> HttpResponse:
        request = self._request(dataset, query, accept)
        past = past_of(query)
        info = self.history.listed(dataset, request.cursor[0] if request.cursor else None, past)
        where = request.where
        selection = self.selections.select(info, where, request.cursor[2:] if request.cursor else None, past)
        head = head_of(info, past) | {"where": {"column": where.column, "value": where.value}}
        head |= ({"joined": selection.head} if selection.head else {}) | {"within": request.within.text}
        frame = json_text(head)[:-1]
        budget = ResponseBudget(self.budget)
        budget.take(cost(frame) + len(',"networks":[],"next":""}') + MAX_CURSOR_CHARS)
        runs, following = self._read(request, info, selection)
        if request.form == "json":
            parts = _within_budget([body for _, body in runs], budget)
            following = runs[len(parts)][0][3] if len(parts) < len(runs) else following
        else:
            parts, following = _networks([run for run, _ in runs], following, budget)
        if not parts and runs:
            raise ResponseTooLarge(
                f"the next range is larger than the response budget of {self.budget} bytes (RESPONSE_BUDGET_BYTES)"
            )
        pinned: list[object] = [_TAG, dataset, info.version, _digest(where), following, *selection.pins]
        token = None if following is None else encode_token(pinned)
        if request.form == "text":
            headers = dict(NO_STORE) | ({NEXT_CURSOR: token} if token else {})
            body = "".join(f"{network}\n" for network in parts)
            return HttpResponse(200, body, headers, content_type="text/plain; charset=utf-8")
        key, listed = ("ranges", parts) if request.form == "json" else ("networks", list(map(json_text, parts)))
        return text_response(200, f'{frame},"{key}":[{",".join(listed)}],"next":{json_text(token)}}}', NO_STORE)

    def _request(self, dataset: str, query: Mapping[str, str], accept: str) -> _Request:
        form = query.get("format", "text" if "text/plain" in accept else "json")
        if form not in FORMATS:
            raise InvalidRequest(f"invalid format {form[:20]!r}: one of {', '.join(FORMATS)}")
        where = parse_where(query.get("where", ""))
        try:
            within, limit = parse_within(query.get("within")), parse_limit(query.get("limit"))
        except ListingError as error:
            raise InvalidRequest(str(error)) from None
        token = query.get("cursor")
        cursor = None if token is None else _cursor(token, dataset, where)
        return _Request(dataset, where, within, limit, form, cursor)

    def _read(
        self, request: _Request, info: VersionInfo, selection: Selection
    ) -> tuple[list[tuple[Run, str]], int | None]:
        """Up to ``limit`` pieces of the page (and, as networks, the rest of a run of touching pieces), each with
        its JSON, value after value; the index line of the next page (None: the end)."""
        values, line = selection.values, None
        if request.cursor is not None:
            line = request.cursor[1]
            at = next((i for i, stats in enumerate(values) if stats.first <= line < stats.first + stats.pieces), None)
            if at is None:
                raise InvalidRequest("invalid cursor: pass the 'next' of the previous page unchanged")
            values = values[at:]
        found: list[tuple[Run, str]] = []
        spans, read = request.within.spans, 0
        for stats in values:
            if line is None:
                if not _may_hold(stats, request.within):
                    continue
                if read == MAX_VALUES_READ:  # the next page reads on from this value
                    return found, stats.first
                line = selection.directory.seek(stats, spans[0].family, spans[0].first)
            read += 1
            following = self._value(request, info, selection, stats, line=line, found=found)
            if following is not None:
                return found, following
            line = None
        return found, None

    def _value(
        self,
        request: _Request,
        info: VersionInfo,
        selection: Selection,
        stats: ValueStats,
        *,
        line: int,
        found: list[tuple[Run, str]],
    ) -> int | None:
        """Add the pieces of one value from ``line`` on to ``found``; the line the next page starts at when the page
        is full, None when the value's pieces (within ``within``) are all in."""
        end, spans = stats.first + stats.pieces, request.within.spans
        for number, text in self.indexes.lines(info, selection.column, selection.directory, line):
            if number >= end:
                return None
            try:
                family, start, last, body = parse_line(text)
            except ValueError:
                raise Unavailable(f"the value index of {selection.column!r} is unreadable") from None
            span = request.within.span(family)
            if span is None or last < span.first:
                continue
            if start > span.last:
                if family == spans[-1].family:
                    return None
                continue
            if len(found) >= request.limit and (request.form == "json" or not touches(found[-1][0], family, start)):
                return number
            found.append(([family, max(start, span.first), min(last, span.last), number], body.decode()))
        return None


def _may_hold(stats: ValueStats, within: Within) -> bool:
    """Whether the value has pieces of a family ``within`` covers (its directory entry says; no read)."""
    families = {span.family for span in within.spans}
    return (V4 in families and stats.ipv4_addresses > 0) or (V6 in families and stats.ipv6_64s > 0)


def _networks(runs: list[Run], following: int | None, budget: ResponseBudget) -> tuple[list[str], int | None]:
    """The fewest CIDR networks of the pieces, touching ones merged, within the budget."""
    networks: list[str] = []
    for family, first, last, line in merge_touching(runs):
        blocks = cidrs(family, first, last)
        if not budget.take(sum(len(block) + 3 for block in blocks)):
            return networks, line
        networks.extend(blocks)
    return networks, following


def _within_budget(parts: list[str], budget: ResponseBudget) -> list[str]:
    """The first of the parts that fit the budget, in order (each with its comma)."""
    for index, part in enumerate(parts):
        if not budget.take(cost(part) + 1):
            return parts[:index]
    return parts
