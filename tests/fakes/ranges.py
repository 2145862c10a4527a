"""An in-memory lookup store (``fencepost.reading.lookup.LookupStore``) holding the items the loader's own code builds.

``MemoryStore.publish`` flattens ranges with ``FamilyRanges.pieces``, builds their items with ``FamilyRanges.items``
and the directories with ``FamilyRanges.directory``, exactly as a load does, and makes the version live. ``find``
answers a probe as DynamoDB answers ``PK = p AND SK <= bound``, newest first, ``Limit=1`` (a bisection of the
partition's sorted sort keys), and reads the item with ``core.storage.items.read_hit``, as the real store does.

For several-dataset tests and benchmarks: ``queries`` counts the ``find`` calls (from any thread), and ``delay``
seconds are slept in each, outside the lock, to stand in for DynamoDB's latency.
"""

from __future__ import annotations

import threading
import time
from bisect import bisect_right
from collections.abc import Iterable, Sequence

from fencepost.core.keyed.join_spec import KeyedJoin
from fencepost.core.keyed.keyed_table import KeyedTable
from fencepost.core.space.addresses import FAMILIES
from fencepost.core.storage.items import Hit, Item, read_hit
from fencepost.core.storage.keys import Directory, Probe, range_pk
from fencepost.core.storage.objects import keys_key
from fencepost.core.versions.build import FamilyRanges
from fencepost.model import LivePointer, VersionInfo

GAP_ATTRIBUTE = "g"  # the attribute a version built before gaps existed does not have (``core.storage.items``)


class _Partition:
    """The items of one ``PK``, by sort key; ``keys`` is kept sorted for the bisection."""

    def __init__(self) -> None:
        self.items: dict[int, Item] = {}
        self.keys: list[int] = []

    def put_all(self, items: Iterable[tuple[int, Item]]) -> None:
        self.items.update(items)
        self.keys = sorted(self.items)

    def last_at_or_below(self, bound: int) -> Item | None:
        index = bisect_right(self.keys, bound) - 1
        return self.items[self.keys[index]] if index >= 0 else None


class MemoryStore:
    """Versions of datasets in memory, served as the lookup reads them; thread-safe for concurrent lookups."""

    def __init__(self, *, delay: float = 0.0) -> None:
        self.delay = delay  # seconds each ``find`` sleeps (a simulated Query's latency)
        self._partitions: dict[str, _Partition] = {}
        self._versions: dict[tuple[str, int], VersionInfo] = {}
        self._live: dict[str, LivePointer] = {}
        self._lock = threading.Lock()
        self._queries = 0

    @property
    def queries(self) -> int:
        """How many ``find`` calls (Queries) were made so far."""
        with self._lock:
            return self._queries

    def publish(
        self,
        dataset: str,
        version: int,
        ranges: dict[int, FamilyRanges],
        columns: Sequence[str],
        *,
        gaps: bool = True,
        merge_neighbours: bool = False,
        aliases: tuple[tuple[int, int], ...] = (),
        indexed: tuple[str, ...] = (),
        keyed_joins: tuple[KeyedJoin, ...] = (),
    ) -> VersionInfo:
        """Store a complete version of ``dataset`` from its ranges per family and make it live.

        ``gaps=False`` stores it as a version built before gaps existed: items without ``g``, ``VersionInfo.gaps``
        False. Families missing from ``ranges`` get an empty directory. ``aliases`` as a MaxMind DB's version lists.
        """
        directories = {family: Directory(family) for family in FAMILIES}
        for family, family_ranges in ranges.items():
            pieces = family_ranges.pieces(merge_neighbours=merge_neighbours)
            self.put_items(family_ranges.items(dataset, version, pieces), gaps=gaps)
            directories[family] = family_ranges.directory(pieces)
        info = VersionInfo(
            dataset, version, tuple(columns), directories, gaps, aliases, indexed, keyed_joins=keyed_joins
        )
        with self._lock:
            self._versions[(dataset, version)] = info
            self._live[dataset] = LivePointer(dataset, version)
        return info

    def publish_keyed(self, dataset: str, version: int, table: KeyedTable) -> tuple[VersionInfo, dict[str, bytes]]:
        """Make a keyed version of ``dataset`` live; its stored table, by key, for the bucket lookups read it from."""
        directories = {family: Directory(family) for family in FAMILIES}
        info = VersionInfo(dataset, version, (table.key, *table.columns), directories, keyed=table.key)
        with self._lock:
            self._versions[(dataset, version)] = info
            self._live[dataset] = LivePointer(dataset, version)
        return info, {keys_key(dataset, version): table.encode()}

    def put_items(self, items: Iterable[Item], *, gaps: bool = True) -> None:
        """Store range items as written to the table (``gaps=False``: without their ``g`` attribute)."""
        by_pk: dict[str, list[tuple[int, Item]]] = {}
        for item in items:
            kept = item if gaps else {name: value for name, value in item.items() if name != GAP_ATTRIBUTE}
            by_pk.setdefault(item["PK"]["S"], []).append((int(item["SK"]["N"]), kept))
        with self._lock:
            for pk, keyed in by_pk.items():
                self._partitions.setdefault(pk, _Partition()).put_all(keyed)

    def find(self, dataset: str, version: int, probe: Probe) -> Hit | None:
        """The last piece at or below the probe in its partition; None when the partition has none."""
        if self.delay:
            time.sleep(self.delay)
        pk = range_pk(dataset, version, probe.family, probe.partition)
        with self._lock:
            self._queries += 1
            partition = self._partitions.get(pk)
            item = partition.last_at_or_below(probe.bound) if partition else None
        return None if item is None else read_hit(probe.family, probe.partition, item)

    def get_live(self, name: str) -> LivePointer | None:
        with self._lock:
            return self._live.get(name)

    def get_version(self, dataset: str, version: int) -> VersionInfo | None:
        with self._lock:
            return self._versions.get((dataset, version))
