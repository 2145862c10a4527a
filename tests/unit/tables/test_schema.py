"""The layout's types and metadata, and the file the writer makes of them: data columns typed by the ``numeric``
setting, row groups of the size asked, the sort order recorded, a version answered through aliases joined as the
lookup answers it."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from fencepost.core.space.addresses import V4, V6, format_address
from fencepost.core.versions.build import FamilyRanges
from fencepost.enrichment.table import VersionTable
from fencepost.tables.parquet_table import write_table
from fencepost.tables.schema import INTEGER, LAYOUT_COLUMNS, METADATA_KEY, REAL, TEXT, Layout, LayoutError, column_type
from tests.support.tables import connection, joined


@pytest.mark.parametrize(
    ("values", "numeric", "kind"),
    [
        (["13335", "", "-1", "0"], True, INTEGER),
        (["1.5", "2", "", "3e4"], True, REAL),
        (["1.5", "US"], True, TEXT),
        (["007"], True, TEXT),  # a leading zero is text the number would lose
        (["1" * 19], True, REAL),  # past int64
        (["nan", "inf"], True, TEXT),
        (["13335"], False, TEXT),
        (["", ""], True, TEXT),
    ],
)
def test_a_numeric_columns_type_is_the_narrowest_every_value_fits(values: list[str], numeric: bool, kind: str) -> None:
    assert column_type(values, numeric) == kind


def test_a_data_column_may_not_take_a_layout_columns_name() -> None:
    with pytest.raises(LayoutError, match="ip_network"):
        Layout.of(["asn", "ip_network"], [("1", "x")])


def _version(count: int, aliases: tuple[str, ...] = ()) -> VersionTable:
    families = {family: FamilyRanges(family) for family in (V4, V6)}
    for index in range(count):
        families[V4].add(index << 12, (index << 12) + 4095, (str(index), f"c{index % 7}"))
        families[V6].add(index << 100, (index << 100) + 99, (str(-index), ""))
    pieces = {family: ranges.pieces() for family, ranges in families.items()}
    return VersionTable.of_build(families, pieces, ("asn", "name"), aliases)


def test_the_file_holds_typed_columns_sorted_in_row_groups_of_the_size_asked(tmp_path: Path) -> None:
    written = write_table(_version(3_000), tmp_path / "t.parquet", numeric=["asn", "name"], row_group_rows=1_000)
    file = pq.ParquetFile(tmp_path / "t.parquet")
    sizes = [file.metadata.row_group(index).num_rows for index in range(file.metadata.num_row_groups)]
    assert sum(sizes) == written.rows == file.metadata.num_rows
    assert max(sizes) == 1_000
    assert len(sizes) == written.row_groups
    schema = file.schema_arrow
    assert schema.names == [*LAYOUT_COLUMNS, "asn", "name"]
    assert (str(schema.field("asn").type), str(schema.field("name").type)) == ("int64", "string")
    metadata = json.loads(schema.metadata[METADATA_KEY])
    assert (metadata["columns"], metadata["numeric"]) == (["asn", "name"], ["asn"])
    sorting = file.metadata.row_group(0).sorting_columns
    assert [schema.names[each.column_index] for each in sorting] == ["ip_bucket", "ip_start"]
    table = file.read(columns=["ip_bucket", "ip_start", "asn"])
    keys = list(zip(table["ip_bucket"].to_pylist(), table["ip_start"].to_pylist(), strict=True))
    assert keys == sorted(keys)
    assert sorted(set(table["asn"].to_pylist())) == sorted({*range(3_000), *(-n for n in range(3_000))})


def _carried(prefix: int, length: int, address: int, low: int) -> str:
    """The IPv6 address under the alias ``prefix``/``length`` that carries IPv4 ``address`` (``low`` below it)."""
    return format_address(V6, prefix | address << (128 - length - 32) | low)


def test_a_version_answered_through_aliases_answers_each_alias_as_the_ipv4_address_it_carries(tmp_path: Path) -> None:
    version = _version(300, ("2002::/16", "2001::/32"))
    written = write_table(version, tmp_path / "t.parquet")
    pieces = {family: len(table) for family, table in version.families.items()}
    assert written.pieces == pieces[V4] * 3 + pieces[V6]  # each IPv4 piece under both aliases too
    carried = [(index << 12) + index % 4096 for index in range(0, 300, 3)] + [300 << 12, (300 << 12) + 77, 0xFFFFFFFF]
    six_to_four, teredo = 0x2002 << 112, 0x2001 << 112
    con, table = connection(), f"read_parquet('{tmp_path / 't.parquet'}')"
    as_v4 = joined(con, [format_address(V4, address) for address in carried], table, ["asn", "name"])
    assert as_v4[0] == ("0", "c0")
    assert as_v4[-3:] == [(None, None)] * 3  # past the pieces: a gap, under the aliases too
    for prefix, length in ((six_to_four, 16), (teredo, 32)):
        for low in (0, 0x1234):
            aliased = [_carried(prefix, length, address, low) for address in carried]
            assert joined(con, aliased, table, ["asn", "name"]) == as_v4
    # the piece a 6to4 address finds is the block of addresses carrying the IPv4 piece's, as GET /lookup answers it
    found = joined(con, [_carried(six_to_four, 16, (5 << 12) + 9, 1)], table, ["ip_start", "ip_end", "ip_network"])
    start, end = six_to_four | (5 << 12) << 80, six_to_four | ((5 << 12) + 4095) << 80 | ((1 << 80) - 1)
    assert found == [(start.to_bytes(16, "big"), end.to_bytes(16, "big"), "2002:0:5000::/36")]
