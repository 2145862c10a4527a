"""Dataset listings (``GET /datasets``, ``GET /datasets/{name}``), cached briefly per container.

Listings read the ``#datasets`` partition strongly consistent, and a record with its latest load's problems is 15-25 KB
(4 to 7 read units a read). Lookups never read it (they read the live pointers, ``fencepost.aws.dynamo.serving``), and a
container answers each listing from its cache for ``LISTING_TTL`` seconds (never longer than the lookups' own cache
TTL), so listing traffic costs at most one read per name, and one of the whole partition, per container and TTL. The
cache is bounded: at most ``MAX_NAMES`` names (least recently used first out), unknown names included.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, cast

from fencepost.core.feeds.schedule import Outcome, SourceState
from fencepost.errors import UnknownDataset, check_dataset_name
from fencepost.http.responses import NO_STORE, HttpResponse, json_response
from fencepost.model import DatasetRecord, LoadStatus
from fencepost.reading.caches import LruCache

T = TypeVar("T")
LISTING_TTL = 5.0  # seconds a listing is answered from a container's cache
MAX_NAMES = 256  # dataset records (or their absence) kept per container


class DatasetReader(Protocol):
    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...
    def list_datasets(self) -> list[DatasetRecord]: ...
    def list_source_states(self) -> dict[str, SourceState]: ...


class Listings:
    """``get`` and ``all`` as the store answers them, at most ``ttl`` seconds old."""

    def __init__(
        self,
        store: DatasetReader,
        ttl: float = LISTING_TTL,
        *,
        max_names: int = MAX_NAMES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store, self.ttl, self.clock = store, ttl, clock
        self._records: LruCache[str, tuple[float, DatasetRecord | None]] = LruCache(max_names)
        self._wholes: dict[str, tuple[float, object]] = {}  # every record, every source state
        self._lock = threading.Lock()

    def get(self, name: str) -> DatasetRecord | None:
        """One dataset's record (None: no such dataset), strongly consistent when read."""
        now = self.clock()
        cached = self._records.get(name)
        if cached is not None and now < cached[0]:
            return cached[1]
        record = self.store.get_dataset(name, consistent=True)
        if self.ttl > 0:
            self._records.put(name, (now + self.ttl, record))
        return record

    def all(self) -> list[DatasetRecord]:
        """Every dataset's record, in name order."""
        return self._whole("records", self.store.list_datasets)

    def sources(self) -> dict[str, SourceState]:
        """What each folder's source's last check found, by dataset (one read of them all)."""
        return self._whole("sources", self.store.list_source_states)

    def _whole(self, name: str, read: Callable[[], T]) -> T:
        """A read of a whole partition, kept ``ttl`` seconds under ``name``."""
        now = self.clock()
        with self._lock:
            cached = self._wholes.get(name)
        if cached is not None and now < cached[0]:
            return cast(T, cached[1])
        found = read()
        if self.ttl > 0:
            with self._lock:
                self._wholes[name] = (now + self.ttl, found)
        return found

    def answer_all(self) -> HttpResponse:
        """``GET /datasets``: every dataset that is not retired, and every folder whose source wrote nothing yet."""
        sources = self.sources()
        records = {record.name: record for record in self.all() if not record.retired}
        awaited = [_awaited(name, state) for name, state in sources.items() if name not in records]
        shown = [_shown(record, sources) for record in sorted([*records.values(), *awaited], key=lambda r: r.name)]
        return json_response(200, {"datasets": shown}, NO_STORE)

    def answer_one(self, name: str) -> HttpResponse:
        """``GET /datasets/{name}``."""
        check_dataset_name(name)
        record, sources = self.get(name), self.sources()
        if (record is None or record.retired) and name in sources:
            record = _awaited(name, sources[name])  # a source that has not yet written a release
        if record is None or record.retired:
            raise UnknownDataset(f"no dataset named {name!r}")
        return json_response(200, _shown(record, sources), NO_STORE)


def _awaited(name: str, state: SourceState) -> DatasetRecord:
    """A dataset whose folder names a source but holds no data yet: LOADING until its first release is written and
    built, FAILED while its source's checks fail (``source.reason`` says why)."""
    failed = state.outcome in (Outcome.FAILED, Outcome.INVALID)
    return DatasetRecord(name=name, status=LoadStatus.FAILED if failed else LoadStatus.LOADING)


def _shown(record: DatasetRecord, sources: dict[str, SourceState]) -> dict[str, Any]:
    """A dataset as the API shows it: its record, and its folder's source (None: the folder names none)."""
    state = sources.get(record.name)
    return {**record.to_api(), "source": None if state is None else state.to_api()}
