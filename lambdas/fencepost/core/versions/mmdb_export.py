"""A version as a MaxMind DB file, readable by the official readers (``maxminddb``), written with ``mmdb-writer``
(MIT licence; pure Python, on ``netaddr``).

One record per distinct metadata, a map of the columns by name (strings; a column the folder names in
``"numeric"`` stored as a number where its value is one). Each piece is inserted as the fewest CIDR networks that
make it up. A version with IPv6 pieces is an IPv6 database (``ip_version`` 6) holding its IPv4 pieces in the
``::/96`` subtree, where readers look IPv4 addresses up; an IPv4-only version is an IPv4 database.
``database_type`` is the dataset's name and ``build_epoch`` the version's load time.

With a GeoLite2 profile (``profile_mmdb``), each record is the profile's shape instead
(``core.versions.geolite2_records``), ``database_type`` the profile's (``GeoLite2-Country``, ``GeoLite2-City``,
``GeoLite2-ASN``) and the description names the dataset, the version and what was left out.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mmdb_writer import MMDBWriter
from netaddr import IPNetwork, IPSet

from fencepost.core.pauses import gc_paused
from fencepost.core.space.addresses import V6
from fencepost.core.space.networks import range_blocks
from fencepost.core.versions.exports import Piece
from fencepost.core.versions.geolite2_records import Shaper, left_out
from fencepost.core.versions.mmdb_profiles import ColumnMap, Profile

Shape = Callable[[Sequence[str]], dict[str, Any] | str]  # a piece's values to its record, or why it is left out


class _Writer(MMDBWriter):
    """``MMDBWriter`` with the build epoch given rather than the clock's."""

    def __init__(self, *, build_epoch: int, **options: Any) -> None:
        super().__init__(**options)
        self.build_epoch = build_epoch

    def _build_meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = super()._build_meta()
        meta["build_epoch"] = self.build_epoch
        return meta


def _record(columns: Sequence[str], values: Sequence[str], numeric: frozenset[str]) -> dict[str, Any]:
    record: dict[str, Any] = {}
    for column, value in zip(columns, values, strict=False):
        record[column] = _number(value) if column in numeric else value
    return record


def _number(value: str) -> Any:
    try:
        return int(value)
    except ValueError:
        try:
            return float(value)
        except ValueError:
            return value


def mmdb_bytes(
    dataset: str,
    columns: Sequence[str],
    pieces: Iterable[Piece],
    *,
    has_ipv6: bool,
    build_epoch: int,
    numeric: Sequence[str] = (),
) -> bytes:
    """The MaxMind DB file of the pieces (in address order, IPv4 first)."""
    numbers = frozenset(numeric)
    writer = _writer(dataset, f"Fencepost dataset {dataset}", has_ipv6=has_ipv6, build_epoch=build_epoch)
    with gc_paused():  # the tree's millions of nodes would make each collection slower than the last
        _insert(writer, pieces, lambda values: _record(columns, values, numbers))
        return _written(writer)


@dataclass(frozen=True, slots=True)
class ProfileFile:
    data: bytes
    skipped: str  # what was left out, in words (``geolite2_records.left_out``): empty when nothing was


def profile_mmdb(
    dataset: str,
    version: int,
    columns: Sequence[str],
    pieces: Iterable[Piece],
    *,
    profile: Profile,
    mapping: ColumnMap = (),
    has_ipv6: bool,
    build_epoch: int,
) -> ProfileFile:
    """The MaxMind DB file of the pieces in a GeoLite2 profile's shape; ``ProfileError`` when the columns cannot
    answer a field it needs."""
    shaper = Shaper(profile, columns, mapping)
    about = f"Fencepost dataset {dataset}, version {version}, in the {profile.database_type} record shape"
    writer = _writer(profile.database_type, about, has_ipv6=has_ipv6, build_epoch=build_epoch)
    with gc_paused():
        skipped = left_out(_insert(writer, pieces, shaper.record))
        writer.description = {"en": f"{about}; {skipped}" if skipped else about}
        return ProfileFile(_written(writer), skipped)


def _writer(database_type: str, description: str, *, has_ipv6: bool, build_epoch: int) -> _Writer:
    return _Writer(
        ip_version=6 if has_ipv6 else 4,
        ipv4_compatible=has_ipv6,
        database_type=database_type,
        description={"en": description},
        languages=["en"],
        int_type="u64",
        build_epoch=build_epoch,
    )


def _insert(writer: _Writer, pieces: Iterable[Piece], shape: Shape) -> Counter[str]:
    """Insert each piece with its record (each distinct one made once); the pieces left out, by reason."""
    records: dict[tuple[str, ...], dict[str, Any] | str] = {}
    skipped: Counter[str] = Counter()
    for family, first, last, values in pieces:
        key = tuple(values)
        record = records.get(key)
        if record is None:
            record = records[key] = shape(values)
        if isinstance(record, str):
            skipped[record] += 1
            continue
        networks = [
            IPNetwork((first_block, length), version=6 if family == V6 else 4)
            for first_block, length in range_blocks(family, first, last)
        ]
        writer.insert_network(IPSet(networks), record)
    return skipped


def _written(writer: _Writer) -> bytes:
    handle, path = tempfile.mkstemp(suffix=".mmdb")
    os.close(handle)
    try:
        writer.to_db_file(path)
        with open(path, "rb") as written:
            return written.read()
    finally:
        os.unlink(path)
