"""The layout's types and metadata, and the file the writer makes of them: data columns typed by the ``numeric``
setting, row groups of the size asked, the sort order recorded, a version with aliases refused."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from fencepost.core.space.addresses import V4, V6
from fencepost.core.versions.build import FamilyRanges
from fencepost.enrichment.table import VersionTable
from fencepost.tables.parquet_table import write_table
from fencepost.tables.schema import INTEGER, LAYOUT_COLUMNS, METADATA_KEY, REAL, TEXT, Layout, LayoutError, column_type


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


def test_a_version_answered_through_aliases_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="aliases"):
        write_table(_version(2, ("2002::/16",)), tmp_path / "t.parquet")
