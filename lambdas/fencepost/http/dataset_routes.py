"""Dataset listings (``GET /datasets``, ``GET /datasets/{name}``), cached briefly per container, and the reads of a
dataset's build records and dated folders that ``GET /datasets/{name}/versions`` and exports of past versions make.

Listings read the ``#datasets`` partition strongly consistent, and a record with its latest load's problems is 15-25 KB
(4 to 7 read units a read); a dataset's build records are one consistent Query of all of them. Lookups never read
either (they read the live pointers, ``fencepost.aws.dynamo.serving``), and a container answers each from its cache for
``LISTING_TTL`` seconds (never longer than the lookups' own cache TTL), so listing traffic costs at most one read of
each per name, and one of the whole partition, per container and TTL, however many requests a client sends. The
cache is bounded: at most ``MAX_NAMES`` names of each kind (least recently used first out), unknown names included.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, cast

from fencepost.core.folders import max_age
from fencepost.core.folders.backfill import Dated
from fencepost.core.sources.schedule import Outcome, SourceState
from fencepost.errors import UnknownDataset, check_dataset_name
from fencepost.http.responses import NO_STORE, HttpResponse, json_response
from fencepost.model import BuildRecord, DatasetRecord, LoadStatus
from fencepost.reading.caches import LruCache

T = TypeVar("T")
LISTING_TTL = 5.0  # seconds a listing is answered from a container's cache
MAX_NAMES = 256  # dataset records (or their absence) kept per container


class DatasetReader(Protocol):
    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...
    def list_datasets(self) -> list[DatasetRecord]: ...
    def list_source_states(self) -> dict[str, SourceState]: ...
    def list_builds(self, dataset: str) -> list[BuildRecord]: ...
    def list_dated(self, dataset: str) -> list[Dated]: ...


class Listings:
    """``get``, ``all`` and each name's build records and dated folders as the store answers them, at most ``ttl``
    seconds old (a ``VersionSource`` of ``http.version_routes``)."""

    def __init__(
        self,
        store: DatasetReader,
        ttl: float = LISTING_TTL,
        *,
        max_names: int = MAX_NAMES,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.store, self.ttl, self.clock, self.wall = store, ttl, clock, wall
        self._named: LruCache[tuple[str, str], tuple[float, object]] = LruCache(3 * max_names)  # three kinds
        self._wholes: dict[str, tuple[float, object]] = {}  # every record, every source state
        self._lock = threading.Lock()

    def get(self, name: str) -> DatasetRecord | None:
        """One dataset's record (None: no such dataset), strongly consistent when read."""
        return self._of("record", name, lambda: self.store.get_dataset(name, consistent=True))

    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:  # noqa: ARG002 - cached
        return self.get(name)

    def list_builds(self, dataset: str, *, fresh: bool = False) -> list[BuildRecord]:
        """The dataset's build records (strongly consistent when read); ``fresh``: read now, past the cache."""
        return self._of("builds", dataset, lambda: self.store.list_builds(dataset), fresh=fresh)

    def list_dated(self, dataset: str) -> list[Dated]:
        return self._of("dated", dataset, lambda: self.store.list_dated(dataset))

    def _of(self, kind: str, name: str, read: Callable[[], T], *, fresh: bool = False) -> T:
        """A read about one name, kept ``ttl`` seconds under ``(kind, name)`` (``fresh``: read again now)."""
        now = self.clock()
        cached = None if fresh else self._named.get((kind, name))
        if cached is not None and now < cached[0]:
            return cast(T, cached[1])
        found = read()
        if self.ttl > 0:
            self._named.put((kind, name), (now + self.ttl, found))
        return found

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
        now = self.wall()
        listed = sorted([*records.values(), *awaited], key=lambda r: r.name)
        shown = [_shown(record, sources, now) for record in listed]
        return json_response(200, {"datasets": shown}, NO_STORE)

    def answer_one(self, name: str) -> HttpResponse:
        """``GET /datasets/{name}``."""
        check_dataset_name(name)
        record, sources = self.get(name), self.sources()
        if (record is None or record.retired) and name in sources:
            record = _awaited(name, sources[name])  # a source that has not yet written a release
        if record is None or record.retired:
            raise UnknownDataset(f"no dataset named {name!r}")
        return json_response(200, _shown(record, sources, self.wall()), NO_STORE)


def _awaited(name: str, state: SourceState) -> DatasetRecord:
    """A dataset whose folder names a source but holds no data yet: LOADING until its first release is written and
    built, FAILED while its source's checks fail (``source.reason`` says why)."""
    failed = state.outcome in (Outcome.FAILED, Outcome.INVALID)
    return DatasetRecord(name=name, status=LoadStatus.FAILED if failed else LoadStatus.LOADING)


def _shown(record: DatasetRecord, sources: dict[str, SourceState], now: float) -> dict[str, Any]:
    """A dataset as the API shows it: its record, its live version's age against its max age at ``now`` (epoch
    seconds; ``core.folders.max_age``), and its folder's source (None: the folder names none)."""
    state = sources.get(record.name)
    every = None if state is None else state.every
    fresh = max_age.shown(record.loaded_at if record.live is not None else None, record.max_age, every, now)
    return {**record.to_api(), **fresh, "source": None if state is None else state.to_api()}
