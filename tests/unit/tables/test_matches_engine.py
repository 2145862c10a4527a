"""DuckDB, through the join's SQL over a version's Parquet table, answers what the enrichment engine answers (which is
what ``GET /lookup`` answers: tests/unit/enrichment/test_matches_lookup.py): over 100,000 addresses (IPv4, IPv6,
IPv4-mapped IPv6, piece edges, gaps and misses) of one dataset built from both shared files by the loader's recipe,
every 25th range left out so that gaps are many."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fencepost.core.space.addresses import V4, V6
from fencepost.enrichment.sources import FileSource
from fencepost.enrichment.table import VersionTable
from fencepost.tables.buckets import LEVELS, MAX_COPIES
from tests.support.tables import (
    address_text,
    connection,
    engine_answers,
    joined,
    mixed_addresses,
    shared_version,
)

COUNT = 100_000
SELECTED = ["ip_start", "ip_end", "ip_network", "col3", "col4", "col5"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[FileSource, VersionTable, Path]:
    source, table, path, written = shared_version(tmp_path_factory)
    pieces = sum(len(each) for each in table.families.values())
    assert written.pieces == pieces
    assert pieces < written.rows <= MAX_COPIES * pieces
    return source, table, path


def _expected_data(data: dict[str, str]) -> tuple[Any, ...]:
    """The engine's values as the table holds them: ``col3`` declared numeric (an integer, or null where empty)."""
    return (int(data["col3"]) if data["col3"] else None, data["col4"], data["col5"])


def _engine(source: FileSource, table: VersionTable, addresses: list[str], fields: str) -> list[dict[str, Any]]:
    return engine_answers("geo", source, table, addresses, fields)


def test_duckdb_over_the_table_answers_100_000_addresses_as_the_engine(built: Any) -> None:
    source, table, path = built
    addresses = mixed_addresses(table, COUNT)
    found = joined(connection(), addresses, f"read_parquet('{path}')", SELECTED)
    kinds = {"v4": 0, "v6": 0, "mapped": 0, "miss": 0}
    for address, want, row in zip(addresses, _engine(source, table, addresses, "data"), found, strict=True):
        if "data" not in want:
            assert row == (None,) * len(SELECTED), address
            kinds["miss"] += 1
            continue
        assert tuple(row[3:]) == _expected_data(want["data"]), address
        kinds["mapped" if address.startswith("::ffff:") else "v6" if ":" in address else "v4"] += 1
    assert min(kinds.values()) > 5_000, kinds  # each kind of address is well represented
    # The piece found is the engine's (``match``: the piece's bounds, and its network where the piece is one)
    chosen = addresses[:10_000]
    networks = 0
    for address, want, row in zip(chosen, _engine(source, table, chosen, "data,match"), found, strict=False):
        start, end, shown = row[:3]
        if "match" not in want:
            assert start is None, address
            continue
        assert (address_text(start), address_text(end)) == (want["match"]["start"], want["match"]["end"]), address
        if shown is not None:
            assert shown == want["match"]["network"], address
            networks += 1
    assert networks > 1_000


def test_the_file_holds_each_piece_in_the_buckets_it_spans_sorted_by_bucket_then_address(built: Any) -> None:
    _, table, path = built
    con = connection()
    rows = f"read_parquet('{path}', file_row_number = true)"
    length = "(ip_bucket >> 48 & 255)"
    lengths = tuple(sorted(set(LEVELS[V4] + LEVELS[V6])))
    outside = con.sql(
        f"SELECT count(*) FROM {rows} WHERE ip_bucket NOT BETWEEN fp_hex_bucket(lower(hex(ip_start)), {length}) "
        f"AND fp_hex_bucket(lower(hex(ip_end)), {length}) OR {length} NOT IN {lengths}"
    ).fetchall()
    assert outside == [(0,)]
    pieces, most = con.sql(
        f"SELECT count(*), max(copies) FROM (SELECT ip_start, count(*) AS copies FROM {rows} GROUP BY ip_start)"
    ).fetchall()[0]
    assert pieces == sum(len(each) for each in table.families.values())
    assert 1 < most <= MAX_COPIES
    unsorted = con.sql(
        f"SELECT count(*) FROM (SELECT ip_bucket, ip_start, lag(ip_bucket) OVER w AS b, lag(ip_start) OVER w AS s "
        f"FROM {rows} WINDOW w AS (ORDER BY file_row_number)) WHERE b IS NOT NULL AND (b, s) >= (ip_bucket, ip_start)"
    ).fetchall()
    assert unsorted == [(0,)]
