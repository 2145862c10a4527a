"""The table's key layout: one table, ``PK`` (string) and ``SK`` (number), shared by lookups and the loader.

Range items. A flattened piece ``[start, end]`` of dataset ``ds``, version ``v`` is stored once, under the
partition of its start::

    PK = "ds#v#4/1"       (IPv4: the /8, in decimal)       SK = start - base of the /8
    PK = "ds#v#6/2a001"   (IPv6: the /20, 5 hex digits)    SK = start - base of the /20

The sort key is the offset inside the partition, below 2**108, so it always fits DynamoDB's 38-digit Number
and orders addresses exactly. Pieces are never cut at partition boundaries (IPv6 would explode); instead each
version has a *directory*: the sorted non-empty partitions of each family with the offset of their first piece.
The piece that can contain address ``a`` is the last piece at or below ``a``; the directory names the partition
holding it, so a lookup is always one Query ``PK = p AND SK <= bound``, newest first, ``Limit=1``.

Metadata items (PK starts with ``#``, which no dataset name can)::

    PK = "#datasets"      SK = dataset_id(name)   one record per dataset: live version, status, load progress
    PK = "#v#ds#v"        SK = 0                  version header: columns, counts, objects
                          SK = 1, 2, ...          directory pages
    PK = "#b#ds"          SK = build number       a build's chunks and how many are written
    PK = "#l#ds"          SK = 0                  the live pointer: what lookups read (version, live since)
    PK = "#h#ds"          SK = instant (ms)       the history: from that instant, that version is served
    PK = "#d#ds"          SK = date (epoch s)     a dated folder's sources and the version built from them
    PK = "#sources"       SK = dataset_id(name)   what a folder's source's last check found (core.sources)
                          SK = -1                 the lease of the sources' rounds: one at a time (sources.rounds)
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from fencepost.core.space.addresses import BITS, V4, V6

PK: Final = "PK"  # string
SK: Final = "SK"  # number

PARTITION_BITS: Final = {V4: 8, V6: 20}
_SHIFT: Final = {family: BITS[family] - bits for family, bits in PARTITION_BITS.items()}
_OFFSET_MASK: Final = {family: (1 << shift) - 1 for family, shift in _SHIFT.items()}

DATASETS_PK: Final = "#datasets"
SOURCES_PK: Final = "#sources"
VERSION_HEADER_SK: Final = 0

DATASET_NAME_RULE: Final = (
    "a dataset name starts with a letter or digit, then letters, digits, '.', '_' or '-', at most 64 characters"
)
DATASET_NAME_PATTERN: Final = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
_DATASET_NAME: Final = re.compile(DATASET_NAME_PATTERN)


def is_dataset_name(name: str) -> bool:
    return _DATASET_NAME.fullmatch(name) is not None


def partition_of(family: int, address: int) -> int:
    return address >> _SHIFT[family]


def partition_base(family: int, partition: int) -> int:
    return partition << _SHIFT[family]


def sort_key(family: int, address: int) -> int:
    """The address's offset inside its partition: the item's ``SK``."""
    return address & _OFFSET_MASK[family]


def partition_label(family: int, partition: int) -> str:
    return f"4/{partition}" if family == V4 else f"6/{partition:05x}"


def range_pk(dataset: str, version: int, family: int, partition: int) -> str:
    return f"{dataset}#{version}#{partition_label(family, partition)}"


def version_pk(dataset: str, version: int) -> str:
    return f"#v#{dataset}#{version}"


def builds_pk(dataset: str) -> str:
    return f"#b#{dataset}"


LIVE_POINTER_SK: Final = 0


def live_pk(dataset: str) -> str:
    """The live pointer's partition: one per dataset, apart from ``#datasets`` (which listings read)."""
    return f"#l#{dataset}"


def history_pk(dataset: str) -> str:
    """The history's partition: one event per change of what the dataset serves (``core.versions.history``)."""
    return f"#h#{dataset}"


def dated_pk(dataset: str) -> str:
    """The dated folders' partition: what became of each one's sources (``core.folders.backfill``), one item a date."""
    return f"#d#{dataset}"


def dataset_id(name: str) -> int:
    """A stable 56-bit number for a dataset name: the record's ``SK`` in the ``#datasets`` partition."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=7).digest(), "big")


@dataclass(frozen=True, slots=True)
class Probe:
    """The one Query that answers an address: ``PK = pk AND SK <= bound``, newest first, ``Limit=1``."""

    family: int
    partition: int
    bound: int


@dataclass(frozen=True, slots=True)
class Directory:
    """The non-empty partitions of one family in one version, each with the sort key of its first piece."""

    family: int
    partitions: tuple[int, ...] = ()
    firsts: tuple[int, ...] = ()

    @classmethod
    def of_starts(cls, family: int, starts: Iterable[int]) -> Directory:
        """Build the directory from the start addresses of every stored piece (any order)."""
        first: dict[int, int] = {}
        for start in starts:
            partition, offset = partition_of(family, start), sort_key(family, start)
            if offset < first.get(partition, offset + 1):
                first[partition] = offset
        ordered = sorted(first)
        return cls(family, tuple(ordered), tuple(first[p] for p in ordered))

    @property
    def first_start(self) -> int | None:
        """The first address of the family's first piece; None when the version has none of this family."""
        return partition_base(self.family, self.partitions[0]) + self.firsts[0] if self.partitions else None

    def probe(self, address: int) -> Probe | None:
        """Where the last piece starting at or below ``address`` lives; None when no piece starts that low."""
        partition, offset = partition_of(self.family, address), sort_key(self.family, address)
        index = bisect_right(self.partitions, partition) - 1
        if index >= 0 and self.partitions[index] == partition:
            if offset >= self.firsts[index]:
                return Probe(self.family, partition, offset)
            index -= 1
        if index < 0:
            return None
        # The answer starts in a lower partition: take that partition's last piece.
        return Probe(self.family, self.partitions[index], _OFFSET_MASK[self.family])

    def _entries(self) -> Iterator[str]:
        return (f"{p:x}:{f:x}" for p, f in zip(self.partitions, self.firsts, strict=True))

    def pages(self, max_chars: int) -> list[str]:
        """The directory as compact text pages of at most ``max_chars``: ``partition:first`` in hex, comma separated.

        One page is one item, so ``max_chars`` keeps each well under DynamoDB's 400 KB item limit.
        """
        pages: list[str] = []
        current: list[str] = []
        size = 0
        for entry in self._entries():
            if current and size + len(entry) + 1 > max_chars:
                pages.append(",".join(current))
                current, size = [], 0
            current.append(entry)
            size += len(entry) + 1
        if current:
            pages.append(",".join(current))
        return pages

    @classmethod
    def from_pages(cls, family: int, pages: Iterable[str]) -> Directory:
        partitions: list[int] = []
        firsts: list[int] = []
        for page in pages:
            for entry in filter(None, page.split(",")):
                partition, first = entry.split(":")
                partitions.append(int(partition, 16))
                firsts.append(int(first, 16))
        return cls(family, tuple(partitions), tuple(firsts))
