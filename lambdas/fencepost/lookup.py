"""The read path: which version of a dataset is live (cached briefly), and the one Query per address."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Protocol

from fencepost.core.addresses import format_address
from fencepost.core.items import Hit
from fencepost.core.keys import DATASET_NAME_RULE, Probe, is_dataset_name
from fencepost.errors import InvalidRequest, UnknownDataset
from fencepost.model import DatasetRecord, VersionInfo


class LookupStore(Protocol):
    def find(self, dataset: str, version: int, probe: Probe) -> Hit | None: ...
    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...
    def get_version(self, dataset: str, version: int) -> VersionInfo | None: ...


@dataclass(frozen=True, slots=True)
class Answer:
    """A found range, ready to serialize."""

    family: int
    address: int
    dataset: str
    hit: Hit
    info: VersionInfo

    def body(self) -> dict[str, Any]:
        hit = self.hit
        match = {"start": hit.start_text, "end": hit.end_text}
        span = {"start": hit.range_texts[0], "end": hit.range_texts[1]} if hit.range_texts else match
        return {
            "ip": format_address(self.family, self.address),
            "dataset": self.dataset,
            "version": self.info.version,
            "range": span,
            "match": match,
            "data": dict(zip(self.info.columns, hit.values, strict=False)),
        }


class Lookup:
    """Answers addresses from the live version of a dataset.

    The live version of each dataset is cached for ``ttl`` seconds (unknown datasets too, so a stream of bad
    names does not reach the table); a version's columns and directory never change, so they are cached until
    the version is no longer live. A warm lookup therefore costs exactly one Query.
    """

    _MAX_VERSIONS = 16

    def __init__(self, store: LookupStore, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._store = store
        self._ttl = ttl
        self._clock = clock
        self._live: dict[str, tuple[float, int | None]] = {}
        self._versions: OrderedDict[tuple[str, int], VersionInfo] = OrderedDict()

    def live(self, dataset: str) -> VersionInfo:
        """The live version of ``dataset``, or ``UnknownDataset``."""
        now = self._clock()
        cached = self._live.get(dataset)  # only valid names are ever cached
        if cached is None or cached[0] <= now:
            if not is_dataset_name(dataset):
                raise InvalidRequest(f"invalid dataset name {dataset[:80]!r}: {DATASET_NAME_RULE}")
            record = self._store.get_dataset(dataset)
            version = record.live if record is not None and not record.retired else None
            cached = (now + self._ttl, version)
            self._live[dataset] = cached
        version = cached[1]
        if version is None:
            raise UnknownDataset(f"no dataset named {dataset!r} is loaded")
        return self._version(dataset, version)

    def _version(self, dataset: str, version: int) -> VersionInfo:
        key = (dataset, version)
        info = self._versions.get(key)
        if info is None:
            info = self._store.get_version(dataset, version)
            if info is None:
                raise UnknownDataset(f"version {version} of dataset {dataset!r} is not readable")
            self._versions[key] = info
            while len(self._versions) > self._MAX_VERSIONS:
                self._versions.popitem(last=False)
        return info

    def find(self, info: VersionInfo, family: int, address: int) -> Answer | None:
        """The one-Query fence-post lookup: the last piece at or below the address, if it reaches it."""
        probe = info.directories[family].probe(address)
        if probe is None:
            return None
        hit = self._store.find(info.dataset, info.version, probe)
        if hit is None or hit.end < address:
            return None
        return Answer(family, address, info.dataset, hit, info)

    def find_many(
        self, info: VersionInfo, addresses: Sequence[tuple[int, int]], pool: Executor | None = None
    ) -> list[Answer | None]:
        """The answer for each ``(family, address)``, in order: one Query per distinct address.

        The Queries run on ``pool`` concurrently (without one, one after another); the first failure is raised.
        """
        distinct = list(dict.fromkeys(addresses))
        if pool is None:
            answers = [self.find(info, family, address) for family, address in distinct]
        else:
            answers = list(pool.map(lambda key: self.find(info, *key), distinct))
        found = dict(zip(distinct, answers, strict=True))
        return [found[key] for key in addresses]
