"""``GET /datasets/{name}/diff``: the stretches whose answer the latest build changed, a page at a time.

A build writes its changed stretches to the bucket when it compares itself with the live version
(``fencepost.loading.comparing``), as JSON lines in gzip members of ``MEMBER_LINES`` lines (``core.storage.members``). A
page is one ranged GET from the member where the previous page stopped: its cost does not grow with the pages before it.
The cursor pins the build it pages; once a newer load replaces that build as the dataset's latest, the cursor expires.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Final, Protocol, TypeGuard

from fencepost.core.storage.keys import is_dataset_name
from fencepost.core.storage.members import MAX_OFFSET, MEMBER_LINES, START, MemberError, Position, lines_from
from fencepost.core.storage.objects import changes_key
from fencepost.errors import (
    CursorExpired,
    InvalidRequest,
    NotFound,
    ResponseTooLarge,
    Unavailable,
    UnknownDataset,
    check_dataset_name,
)
from fencepost.http.budget import ResponseBudget, cost
from fencepost.http.paging import MAX_CURSOR_CHARS, MAX_VERSION, decode_token, encode_token
from fencepost.http.parameters import page_limit
from fencepost.http.responses import json_text
from fencepost.model import DatasetRecord

_TAG: Final = "diff"  # a cursor of ``GET /ranges`` is never taken for one of these


class ChangeFiles(Protocol):
    def read_from(self, key: str, offset: int) -> Callable[[int], bytes] | None:
        """The object's bytes from ``offset`` on, a read at a time; None when there is no such object."""
        ...


@dataclass(frozen=True, slots=True)
class DiffCursor:
    dataset: str
    version: int
    at: Position

    def token(self) -> str:
        return encode_token([_TAG, self.dataset, self.version, self.at.offset, self.at.line])


def parse_diff_cursor(token: str, dataset: str) -> DiffCursor:
    refused = InvalidRequest("invalid cursor: pass the 'next' of the previous page unchanged")
    fields = decode_token(token, 5)
    if fields is None:
        raise refused
    tag, name, version, offset, index = fields
    if tag != _TAG or not isinstance(name, str) or not is_dataset_name(name):
        raise refused
    if name != dataset:
        raise InvalidRequest(f"invalid cursor: it pages dataset {name!r}, not {dataset[:80]!r}")
    if not (_whole(version) and _whole(offset) and _whole(index)):
        raise refused
    if not (1 <= version <= MAX_VERSION and 0 <= offset < MAX_OFFSET and 0 <= index < MEMBER_LINES):
        raise refused
    return DiffCursor(name, version, Position(offset, index))


def _whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


class DiffListing:
    """Pages of a dataset's latest diff: the record from ``record`` (briefly cached) or ``fresh`` (consistent)."""

    def __init__(
        self,
        record: Callable[[str], DatasetRecord | None],
        fresh: Callable[[str], DatasetRecord | None],
        files: Callable[[], ChangeFiles] | None,
        budget: int,
    ) -> None:
        self.record, self.fresh, self.files, self.budget = record, fresh, files, budget

    def answer(self, dataset: str, query: Mapping[str, str]) -> str:
        check_dataset_name(dataset)
        limit = page_limit(query)
        token = query.get("cursor")
        cursor = None if token is None else parse_diff_cursor(token, dataset)
        record = self._record(dataset, cursor)
        load = record.load
        summary = load.diff
        diff = None if summary is None else asdict(summary)
        head = {"dataset": dataset, "version": load.version, "status": str(record.status), "diff": diff}
        if summary is None or summary.baseline is None or load.version is None:
            return json_text({**head, "changes": [], "next": None})
        frame = json_text(head)[:-1]
        budget = ResponseBudget(self.budget)
        budget.take(cost(frame) + len(',"changes":[],"next":""}') + MAX_CURSOR_CHARS)
        parts, following = self._page(dataset, load.version, START if cursor is None else cursor.at, limit, budget)
        if not parts and following is not None:
            raise ResponseTooLarge(
                f"the next change is larger than the response budget of {self.budget} bytes (RESPONSE_BUDGET_BYTES)"
            )
        after = json_text(None if following is None else DiffCursor(dataset, load.version, following).token())
        return f'{frame},"changes":[{",".join(parts)}],"next":{after}}}'

    def _record(self, dataset: str, cursor: DiffCursor | None) -> DatasetRecord:
        record = self.record(dataset)
        if cursor is not None and (record is None or record.load.version != cursor.version):
            record = self.fresh(dataset)  # the cached record may be older than the page that gave the cursor
        if record is None or record.retired:
            raise UnknownDataset(f"no dataset named {dataset!r}")
        if cursor is not None and record.load.version != cursor.version:
            raise CursorExpired(f"version {cursor.version} is no longer the latest build of {dataset!r}: start again")
        return record

    def _page(
        self, dataset: str, version: int, at: Position, limit: int, budget: ResponseBudget
    ) -> tuple[list[str], Position | None]:
        """Up to ``limit`` changes from ``at`` within ``budget``, and where the next page starts (None: the end)."""
        if self.files is None:
            raise Unavailable("the lookup function has no bucket to read changes from (BUCKET_NAME is not set)")
        key = changes_key(dataset, version)
        read = self.files().read_from(key, at.offset)
        if read is None:
            if at == START:
                raise NotFound(f"the changes of version {version} of dataset {dataset!r} are no longer kept")
            raise InvalidRequest("invalid cursor: pass the 'next' of the previous page unchanged")
        parts: list[str] = []
        try:
            for position, line in lines_from(read, at):
                text = line.decode()
                if len(parts) == limit or not budget.take(cost(text) + 1):
                    return parts, position
                parts.append(text)
        except (MemberError, UnicodeDecodeError):
            if at == START:
                raise Unavailable(f"the changes of version {version} of dataset {dataset!r} are unreadable") from None
            raise InvalidRequest("invalid cursor: pass the 'next' of the previous page unchanged") from None
        return parts, None
