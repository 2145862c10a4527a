"""``GET /datasets/{name}/diff?from=&to=``: the stretches whose answer differs between any two kept versions.

``from`` and ``to`` are each a version number or an RFC 3339 instant (the version live then); ``to`` is the live
version when omitted. The two versions' pieces files, which every build keeps in the bucket for as long as its
version is kept, are merged a page at a time (``core.versions.diff_walk``): a page is one ranged GET of each file, from
the member where the previous page stopped, and one Query per changed stretch found in ``to`` (its data, as the
latest build's diff gives it), sent ``in_flight`` at a time and never more than one batch beyond what the response
budget takes (a page of large rows does not send ``limit`` Queries to answer a few). It ends at ``limit`` changes,
at the response budget, or after walking
``DIFF_SCAN_PIECES`` stretches that did not change (two versions alike over millions of pieces answer in bounded
time: such a page may hold fewer changes than asked, and a cursor). The cursor pins both versions: with it, ``from``
and ``to`` may be left out (and are not read again).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor
from typing import Final

from fencepost.core.space.addresses import FAMILIES, TOP, V4, format_address
from fencepost.core.storage.members import MAX_OFFSET, MEMBER_LINES, START, MemberError, Position, lines_from
from fencepost.core.storage.objects import pieces_key
from fencepost.core.storage.piece_files import PieceLine, parse_piece_line
from fencepost.core.versions.diff_walk import Resume, Step, Stop, walk
from fencepost.core.versions.history import InstantError, parse_instant
from fencepost.errors import (
    CursorExpired,
    InvalidRequest,
    NotFound,
    NoVersionAt,
    ResponseTooLarge,
    Unavailable,
    UnknownDataset,
    VersionGone,
    check_dataset_name,
)
from fencepost.http.budget import ResponseBudget, cost
from fencepost.http.build_diff_routes import ChangeFiles
from fencepost.http.paging import (
    BETWEEN_TAG,
    MAX_CURSOR_CHARS,
    MAX_VERSION,
    decode_token,
    encode_token,
    pin_digest,
)
from fencepost.http.parameters import page_limit
from fencepost.http.responses import json_text
from fencepost.model import LivePointer, VersionInfo
from fencepost.reading.lookup import Lookup
from fencepost.reading.past import History

TAG: Final = BETWEEN_TAG  # (short, as the name's digest: a cursor with an IPv6 address fits MAX_CURSOR_CHARS)
_END: Final = -1  # a file read to its end, in a cursor
_KINDS: Final = {(False, True): "added", (True, False): "removed", (True, True): "changed"}


def _encode(dataset: str, versions: tuple[int, int], at: Resume) -> str:
    places = [_END, 0] if at.old is None else list(at.old)
    places += [_END, 0] if at.new is None else list(at.new)
    return encode_token([TAG, pin_digest(dataset), *versions, at.family, f"{at.address:x}", *places])


def _decode(token: str, dataset: str) -> tuple[tuple[int, int], Resume]:
    refused = InvalidRequest("invalid cursor: pass the 'next' of the previous page unchanged")
    fields = decode_token(token, 10)
    if fields is None or fields[0] != TAG:
        raise refused
    if fields[1] != pin_digest(dataset):
        raise InvalidRequest(f"invalid cursor: it pages another dataset than {dataset[:80]!r}")
    address = fields[5]
    numbers = [n for n in (*fields[2:5], *fields[6:]) if isinstance(n, int) and not isinstance(n, bool)]
    if len(numbers) != 7 or not isinstance(address, str) or not 0 < len(address) <= 32:
        raise refused
    old, new, family, *places = numbers
    try:
        start = int(address, 16)
    except ValueError:
        raise refused from None
    if not (1 <= old <= MAX_VERSION and 1 <= new <= MAX_VERSION and family in FAMILIES and 0 <= start <= TOP[family]):
        raise refused
    positions: list[Position | None] = []
    for offset, line in (places[:2], places[2:]):
        if offset == _END:
            positions.append(None)
        elif 0 <= offset < MAX_OFFSET and 0 <= line < MEMBER_LINES:
            positions.append(Position(offset, line))
        else:
            raise refused
    return (old, new), Resume(family, start, positions[0], positions[1])


class VersionDiff:
    """Pages of the diff between two kept versions. ``scan``: the unchanged stretches a page may walk; ``in_flight``:
    the Queries of changed stretches sent at once."""

    def __init__(
        self,
        history: History,
        lookup: Lookup,
        files: Callable[[], ChangeFiles] | None,
        pool: Executor,
        *,
        budget: int,
        scan: int,
        in_flight: int,
    ) -> None:
        self.history, self.lookup, self.files, self.pool = history, lookup, files, pool
        self.budget, self.scan, self.in_flight = budget, scan, in_flight

    def answer(self, dataset: str, query: Mapping[str, str]) -> str:
        check_dataset_name(dataset)
        limit = page_limit(query)
        token = query.get("cursor")
        if query.get("from") is None and token is None:
            raise InvalidRequest("to needs from: give from=<version or instant> too (to is the live version if absent)")
        if token is None:
            versions = (self._resolve(dataset, "from", query["from"]), self._resolve(dataset, "to", query.get("to")))
            at = Resume(V4, 0, START, START)
        else:
            versions, at = _decode(token, dataset)
        infos = self._pinned(dataset, versions, token is not None)
        head = json_text({"dataset": dataset, "from": versions[0], "version": versions[1]})[:-1]
        if versions[0] == versions[1]:
            return f'{head},"changes":[],"next":null}}'
        budget = ResponseBudget(self.budget)
        budget.take(cost(head) + len(',"changes":[],"next":""}') + MAX_CURSOR_CHARS)
        parts, following = self._page(infos, at, limit, budget, resumed=token is not None)
        after = json_text(None if following is None else _encode(dataset, versions, following))
        return f'{head},"changes":[{",".join(parts)}],"next":{after}}}'

    def _resolve(self, dataset: str, name: str, text: str | None) -> int:
        """The version ``text`` names: a number, or the version live at an instant; the live one for None."""
        try:
            if text is None:
                pointer = self.lookup.live_pointer(dataset)
            elif text.isascii() and text.isdigit() and len(text) <= 12:
                pointer = self.history.version(dataset, int(text))
            else:
                pointer = self.history.at(dataset, parse_instant(text, time.time()))
        except InstantError as error:
            raise InvalidRequest(f"{name} is a version number or an RFC 3339 instant: {error}") from None
        return pointer.version

    def _pinned(self, dataset: str, versions: tuple[int, int], resumed: bool) -> tuple[VersionInfo, VersionInfo]:
        """Both versions, read; a cursor's once one is no longer kept is ``CursorExpired``."""
        try:
            if resumed:  # both were kept when the first page was answered: they may not be any more
                for version in versions:
                    self.history.version(dataset, version)
            old, new = (self.lookup.version_of(LivePointer(dataset, version)) for version in versions)
        except (NoVersionAt, VersionGone, UnknownDataset):
            if resumed:
                expired = f"versions {versions[0]} and {versions[1]} of dataset {dataset!r} are no longer both kept"
                raise CursorExpired(f"{expired}: start again") from None
            raise
        for info in (old, new):
            if info.keyed is not None:  # a table of keys: its build's diff counts them (loading.keyed_building)
                raise InvalidRequest(
                    f"version {info.version} of dataset {dataset!r} is a table of keys, not ranges: GET "
                    f"/datasets/{dataset}/diff?version={info.version} counts the keys its build added, removed and "
                    "changed"
                )
        return old, new

    def _page(
        self, infos: tuple[VersionInfo, VersionInfo], at: Resume, limit: int, budget: ResponseBudget, *, resumed: bool
    ) -> tuple[list[str], Resume | None]:
        old, new = infos
        steps: list[Step] = []
        following: Resume | None = None
        try:
            walked = walk(self._pieces(old, at.old, resumed), self._pieces(new, at.new, resumed), at[:2], self.scan)
            for item in walked:
                if isinstance(item, Stop) or len(steps) == limit:
                    following = item.at
                    break
                steps.append(item)
        except (MemberError, UnicodeDecodeError, ValueError):
            if resumed:
                raise InvalidRequest("invalid cursor: pass the 'next' of the previous page unchanged") from None
            raise Unavailable(f"the pieces of dataset {old.dataset!r} are unreadable") from None
        parts: list[str] = []
        for first in range(0, len(steps), self.in_flight):
            batch = steps[first : first + self.in_flight]
            for step, text in zip(batch, self.pool.map(lambda step: self._line(new, step), batch), strict=True):
                if not budget.take(cost(text) + 1):
                    if not parts:
                        raise ResponseTooLarge(
                            f"the next change is larger than the response budget of {self.budget} bytes "
                            "(RESPONSE_BUDGET_BYTES)"
                        )
                    return parts, step.at
                parts.append(text)
        return parts, following

    def _pieces(self, info: VersionInfo, at: Position | None, resumed: bool) -> Iterator[tuple[Position, PieceLine]]:
        if at is None:
            return
        if self.files is None:
            raise Unavailable("the lookup function has no bucket to read pieces from (BUCKET_NAME is not set)")
        read = self.files().read_from(pieces_key(info.dataset, info.version), at.offset)
        if read is None:
            if resumed:
                gone = f"version {info.version} of dataset {info.dataset!r} is no longer kept"
                raise CursorExpired(f"{gone}: start again")
            raise NotFound(
                f"version {info.version} of dataset {info.dataset!r} has no pieces file to compare (built before "
                "versions kept them)"
            )
        for position, line in lines_from(read, at):
            yield position, parse_piece_line(line.decode())

    def _line(self, info: VersionInfo, step: Step) -> str:
        """A change as the latest build's diff writes it: bounds, how it changed, and what ``to`` answers there."""
        change = step.change
        data = None
        if change.new_hash is not None:
            found = self.lookup.find(info, change.family, change.start)
            data = None if found is None else dict(zip(info.columns, found.hit.values, strict=False))
        kind = _KINDS[(change.old_hash is not None, change.new_hash is not None)]
        start, end = format_address(change.family, change.start), format_address(change.family, change.end)
        return json_text({"start": start, "end": end, "change": kind, "data": data})
