"""``GET /ranges``: the pieces of a version that meet ``within``, in address order, a page at a time.

A page reads, for each family of ``within`` from where its cursor left off: the piece that straddles the lower
edge (the lookup's own probe Query, on the family's first page only), then each non-empty partition of the
version's directory that meets ``within`` with one Query ``SK BETWEEN`` (paged). It ends at ``limit`` pieces,
at the response budget, or after ``MAX_QUERIES`` Queries (a sparse IPv6 directory has many small partitions), and
its cursor pins the version: a later page answers from it as long as it is kept (live, the previous one, or inside
the folder's ``retain_days``). ``as_of`` or ``version`` list a version of the past (``fencepost.reading.past``).
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Mapping
from typing import Protocol

from fencepost.core.storage.items import Hit, Slice
from fencepost.core.storage.keys import partition_of, sort_key
from fencepost.errors import InvalidRequest, ResponseTooLarge
from fencepost.http.budget import ResponseBudget, cost
from fencepost.http.key_routes import ranged
from fencepost.http.paging import (
    MAX_CURSOR_CHARS,
    Cursor,
    ListingError,
    Span,
    Within,
    parse_cursor,
    parse_limit,
    parse_within,
)
from fencepost.http.responses import json_text
from fencepost.http.reverse_params import FORMATS
from fencepost.model import VersionInfo
from fencepost.reading.lookup import Lookup
from fencepost.reading.past import History, Past, parse_past

MAX_QUERIES = 100
_PARTITION_END = {4: (1 << 24) - 1, 6: (1 << 108) - 1}  # the last sort key of a partition


class ListingStore(Protocol):
    def list_pieces(
        self, dataset: str, version: int, family: int, partition: int, *, bounds: tuple[int, int], limit: int
    ) -> Slice: ...


def past_of(query: Mapping[str, str]) -> Past | None:
    """A listing's ``as_of`` or ``version`` (its first page: a cursor pins the version it resolved to)."""
    return parse_past(query.get("as_of"), query.get("version"), several=False, now=time.time())


def head_of(info: VersionInfo, past: Past | None) -> dict[str, object]:
    """What a listing's answer begins with: the dataset and version, and the instant asked for, if one was."""
    head: dict[str, object] = {"dataset": info.dataset, "version": info.version}
    if past is not None and past.shown is not None:
        head["as_of"] = past.shown
    return head


class _Page:
    """The pieces of one page, as JSON texts, within the response budget and the page limit."""

    def __init__(self, info: VersionInfo, limit: int, budget: ResponseBudget) -> None:
        self.info, self.limit, self.budget = info, limit, budget
        self.parts: list[str] = []
        self.queries = 0
        self.read_units = 0.0

    @property
    def full(self) -> bool:
        return len(self.parts) >= self.limit

    def add(self, hit: Hit) -> bool:
        data = dict(zip(self.info.columns, hit.values, strict=False))
        text = json_text({"start": hit.start_text, "end": hit.end_text, "data": data})
        if not self.budget.take(cost(text) + 1):  # with its comma
            return False
        self.parts.append(text)
        return True


class RangeListing:
    """Pages of ``GET /ranges``, read through the lookup's caches (live pointer, version directory) and ``store``."""

    def __init__(self, lookup: Lookup, history: History, store: ListingStore, budget: int) -> None:
        self.lookup, self.history, self.store, self.budget = lookup, history, store, budget

    def answer(self, dataset: str, query: Mapping[str, str]) -> str:
        """The page's JSON text; ``InvalidRequest``, ``UnknownDataset``, ``CursorExpired`` or ``ResponseTooLarge``."""
        form = query.get("format")
        if form is not None and form != "json":
            shown = form[:20] if form in FORMATS else repr(form[:20])
            raise InvalidRequest(f"format {shown} lists the networks of a reverse lookup: give where=<column>:<value>")
        try:
            within = parse_within(query.get("within"))
            limit = parse_limit(query.get("limit"))
            token = query.get("cursor")
            cursor = None if token is None else parse_cursor(token, dataset, within)
        except ListingError as error:
            raise InvalidRequest(str(error)) from None
        past = past_of(query)
        info = ranged(self.history.listed(dataset, None if cursor is None else cursor.version, past))
        head = json_text({**head_of(info, past), "within": within.text})[:-1]
        budget = ResponseBudget(self.budget)
        budget.take(cost(head) + len(',"ranges":[],"next":""}') + MAX_CURSOR_CHARS)  # the frame, the longest cursor
        page = _Page(info, limit, budget)
        following = self._fill(page, within, cursor)
        if not page.parts and following is not None:
            raise ResponseTooLarge(
                f"the next range is larger than the response budget of {self.budget} bytes (RESPONSE_BUDGET_BYTES)"
            )
        after = json_text(None if following is None else following.token())
        return f'{head},"ranges":[{",".join(page.parts)}],"next":{after}}}'

    def _fill(self, page: _Page, within: Within, cursor: Cursor | None) -> Cursor | None:
        """Add pieces to ``page``; the cursor of the page after it, or None when nothing follows."""
        spans = within.spans
        index = 0 if cursor is None else next(i for i, s in enumerate(spans) if s.family == cursor.family)
        after = None if cursor is None else cursor.after
        for position, span in enumerate(spans[index:], start=index):
            if position > index and (page.full or page.queries >= MAX_QUERIES):
                return self._next_family(page.info, spans[position:])
            stopped = self._fill_span(page, span, after)
            if stopped is not None:
                return stopped
            after = None
        return None

    def _next_family(self, info: VersionInfo, spans: tuple[Span, ...]) -> Cursor | None:
        for span in spans:
            if info.directories[span.family].probe(span.last) is not None:
                return Cursor(info.dataset, info.version, span.family, None)
        return None

    def _fill_span(self, page: _Page, span: Span, after: int | None) -> Cursor | None:
        """Add the span's pieces from ``after`` on; the cursor where the page stopped, or None when it went through."""
        info, family = page.info, span.family
        if after is None:
            fitted, after = self._straddler(page, span)
            if not fitted:
                return Cursor(info.dataset, info.version, family, None)
        low = span.first if after is None or after < span.first else after + 1
        directory = info.directories[family]
        first, last = partition_of(family, low), partition_of(family, span.last)
        partitions = [p for p in directory.partitions[bisect_left(directory.partitions, first) :] if p <= last]
        for number, partition in enumerate(partitions):
            if page.full or page.queries >= MAX_QUERIES:
                break
            bounds = (
                sort_key(family, low) if partition == first else 0,
                sort_key(family, span.last) if partition == last else _PARTITION_END[family],
            )
            page.queries += 1
            found = self.store.list_pieces(
                info.dataset, info.version, family, partition, bounds=bounds, limit=page.limit - len(page.parts)
            )
            page.read_units += found.read_units
            for hit in found.hits:
                if not page.add(hit):
                    return Cursor(info.dataset, info.version, family, after)
                after = hit.start
            if found.more or (page.full and number + 1 < len(partitions)):
                return Cursor(info.dataset, info.version, family, after)
        else:
            return None
        return Cursor(info.dataset, info.version, family, after)

    def _straddler(self, page: _Page, span: Span) -> tuple[bool, int | None]:
        """Add the piece that starts below the span and reaches into it, as stored (the lookup's probe Query).

        Whether it fitted, and its start (None: no such piece).
        """
        if span.first == 0:
            return True, None
        page.queries += 1
        answer = self.lookup.find(page.info, span.family, span.first)
        if answer is None or answer.hit.start >= span.first:
            return True, None
        return page.add(answer.hit), answer.hit.start
