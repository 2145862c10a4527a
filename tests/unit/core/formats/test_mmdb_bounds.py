"""MaxMind DB files crafted to cost memory or time, or to mislead the reader: each bound is applied while the
records are decoded (``core.formats.mmdb.records``), and every crafted file fails with a reason, never a hang, an
out-of-memory kill or a silently shorter value. Each load that fails leaves the live version answering."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fencepost.core.folders.limits import Limits
from fencepost.core.formats.base import FileError, ReadOptions
from fencepost.core.formats.mmdb import MmdbSummary, Room, read_mmdb
from fencepost.core.formats.mmdb.tree import TICK_EVERY
from fencepost.core.versions.build import Collector, ProblemLog
from fencepost.model import LoadStatus
from tests.fakes import DATASET, World, loader_settings
from tests.mmdb_files import mmdb, open_reader, set_record, wide_records

MARKER = b"\xab\xcd\xefMaxMind.com"


def _read(
    data: bytes,
    *,
    limits: Limits | None = None,
    room_bytes: int = 1 << 30,
    ticks: list[int] | None = None,
    columns: tuple[str, ...] | None = None,
) -> MmdbSummary:
    return read_mmdb(
        "geo/x.mmdb",
        data,
        ReadOptions(columns=columns),
        Collector(),
        ProblemLog(),
        limits=limits or Limits(),
        room=Room(ranges=10**7, bytes=room_bytes),
        tick=(ticks if ticks is not None else []).append,
    )


# -- the bounds, each applied while records are decoded ------------------------------------------------------------


def test_a_file_whose_records_bring_new_columns_fails_at_the_column_limit_not_after_building_rows() -> None:
    # Given 300 networks each with a record of 1,000 keys of its own (300,000 columns, 90 million cells as rows)
    data = wide_records(300, 1000)
    # When it is read with the default limit of 1,000 columns, it fails while the second record is decoded
    ticks: list[int] = []
    with pytest.raises(FileError, match=r"more than 1,000 metadata columns \(MAX_COLUMNS\)") as raised:
        _read(data, ticks=ticks)
    assert 'choose the columns to keep with "columns" in _settings.json' in raised.value.reason
    assert ticks == []  # two records decoded: too little work for a single tick
    # A lower limit applies as early
    with pytest.raises(FileError, match="more than 10 metadata columns"):
        _read(wide_records(1, 11), limits=Limits(max_columns=10))
    assert _read(wide_records(1, 10), limits=Limits(max_columns=10)).columns[-1] == "k0_9"


def test_the_columns_setting_keeps_such_a_file_readable() -> None:
    # Only the chosen paths become columns, however many the records hold
    summary = _read(wide_records(300, 1000), columns=("k0_0", "k299_999"))
    assert summary.columns == ("k0_0", "k299_999")
    assert summary.rows == 300


def test_column_names_fail_once_they_would_not_fit_a_version_header() -> None:
    # 300 columns of 250-character names: 75 KB of names, under the column limit, over the header's 64 KB
    data = mmdb([("10.0.0.0/8", {f"{k:03d}" + "n" * 247: "x" for k in range(300)})], ip_version=4)
    with pytest.raises(FileError, match="column names take more than 65,536 bytes"):
        _read(data)
    assert len(_read(data, limits=Limits(max_columns=200), columns=("000" + "n" * 247,)).columns) == 1


def test_rows_are_charged_to_the_build_bytes_before_any_is_made() -> None:
    # 2,000 distinct records, each with one of 500 keys: 500 columns, 1,000,000 cells as rows (8 MB of references)
    data = mmdb([(f"10.{n // 256}.{n % 256}.0/24", {f"key{n % 500}": f"v{n}"}) for n in range(2000)], ip_version=4)
    with pytest.raises(FileError) as raised:
        _read(data, room_bytes=4_000_000)
    reason = raised.value.reason
    assert "distinct records, as rows of 500 columns (8 bytes a cell, plus their text), would take more" in reason
    assert "than the 4,000,000 bytes left of 536,870,912 (MAX_BUILD_BYTES)" in reason
    # With room for them, the same file reads
    assert _read(data, room_bytes=9_000_000).rows == 2000


def test_the_deadline_is_checked_while_records_are_decoded_not_only_in_the_tree() -> None:
    # A tree of 3 networks (a few nodes) whose records hold 30,000 values each: the work is all in decoding
    data = mmdb([(f"10.0.{n}.0/24", {f"k{k}": str(n) for k in range(30_000)}) for n in range(3)], ip_version=4)
    assert open_reader(data).metadata().node_count < TICK_EVERY
    ticks: list[int] = []
    _read(data, ticks=ticks, limits=Limits(max_columns=16_384), columns=("k0",))
    assert ticks  # called from decoding: the tree alone never reaches a tick

    def deadline(_: int) -> None:
        raise FileError(None, "reading the objects took longer than one invocation allows")

    with pytest.raises(FileError, match="longer than one invocation allows"):
        read_mmdb(
            "geo/x.mmdb",
            data,
            ReadOptions(columns=("k0",)),
            Collector(),
            ProblemLog(),
            limits=Limits(),
            room=Room(10**7, 1 << 30),
            tick=deadline,
        )


# -- crafted files: the tree and the data section ----------------------------------------------------------------


def _good() -> bytes:
    return mmdb([("10.0.0.0/8", {"a": "b"}), ("192.168.0.0/16", {"a": "c" * 20})], ip_version=4)


def test_a_loop_in_the_search_tree_fails_at_once() -> None:
    # Both records of the root point back to the root: a walk would never end
    data = set_record(set_record(_good(), 0, 0, 0), 0, 1, 0)
    with pytest.raises(FileError, match="search tree is corrupt: it reaches a node twice"):
        _read(data)
    # One record back to the root: a path deeper than an address
    with pytest.raises(FileError, match="search tree is corrupt"):
        _read(set_record(_good(), 1, 0, 0))


def test_a_record_pointing_outside_the_data_section_fails() -> None:
    data = _good()
    meta = open_reader(data).metadata()
    # The root's right half points past the end of the file, or into the 16-byte separator
    for pointer in (meta.node_count + len(data), meta.node_count + 3):
        with pytest.raises(FileError, match="outside the data section"):
            _read(set_record(data, 0, 1, pointer))


def test_a_value_longer_than_the_data_section_holds_fails_instead_of_being_cut_short() -> None:
    # A database whose one record is a string of 20 characters, then the same with the data section's last 5
    # bytes gone: the string claims more bytes than are left before the metadata
    data = mmdb([("10.0.0.0/8", "c" * 20)], ip_version=4)
    assert _read(data).columns == ("value",)
    marker = data.rfind(MARKER)
    with pytest.raises(FileError, match="runs past the end of the data section"):
        _read(data[: marker - 5] + data[marker:])  # (its last bytes would be the metadata's marker: not UTF-8)
    # The same record as 20 raw bytes (type 4), cut short: its end is checked against the data section's
    raw = data.replace(b"T" + b"c" * 20, bytes([0x80 | 20]) + b"c" * 20)
    assert _read(raw).columns == ("value",)
    with pytest.raises(FileError, match=r"a value at byte [\d,]+ runs past the end of the data section"):
        _read(raw[: marker - 5] + raw[marker:])


def test_metadata_claiming_more_tree_nodes_than_the_file_holds_fails() -> None:
    data = _good()
    assert open_reader(data).metadata().node_count < 100
    # Rewrite node_count in the metadata (a uint32 after its key) to claim a larger tree
    at = data.rfind(b"node_count") + len(b"node_count")
    assert at > data.rfind(MARKER)
    assert data[at] >> 5 == 6  # uint32, its size in the control byte
    size = data[at] & 0x1F

    def claiming(nodes: int) -> bytes:
        return data[:at] + bytes([0xC4]) + nodes.to_bytes(4, "big") + data[at + 1 + size :]

    # A tree that would run into the metadata, or past the end of the file
    inside = (len(data) - 40) // 6
    with pytest.raises(
        FileError, match=f"claims {inside:,} tree nodes .* more than the file holds before its metadata"
    ):
        _read(claiming(inside))
    with pytest.raises(FileError, match="search tree extends past the end of the file"):
        _read(claiming(1 << 20))


# -- in a load: FAILED with the reason, the live version untouched -----------------------------------------------


@pytest.mark.parametrize(
    ("crafted", "reason"),
    [  # each file crafted when its test runs, not when the module is collected (on every worker)
        (lambda: wide_records(300, 1000), "more than 1,000 metadata columns"),
        (lambda: set_record(set_record(_good(), 0, 0, 0), 0, 1, 0), "search tree is corrupt"),
        (lambda: set_record(_good(), 0, 1, 10_000), "outside the data section"),
    ],
    ids=["columns", "loop", "pointer"],
)
def test_a_crafted_file_fails_its_load_and_the_live_version_keeps_answering(
    crafted: Callable[[], bytes], reason: str
) -> None:
    world = World(loader_settings())
    world.upload(f"{DATASET}/geo.mmdb", _good())
    world.settle()
    served = world.items(1)
    world.upload(f"{DATASET}/geo.mmdb", crafted())
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, 1)
    assert reason in record.load.problems[0].reason
    assert record.load.problems[0].object == f"{DATASET}/geo.mmdb"
    assert world.items(1) == served
