"""Folder rules on collected rows, whatever their format: ``constants``, ``gap_when`` holes (brute force against
the overlap rule with holes), and joins with a lookup table (explicit, and MaxMind's GeoLite2 CSV layout)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fencepost.core.folders.gates import Gates
from fencepost.core.folders.joins import JoinError, JoinSpec, apply_join, folder_join, read_table, tables_of
from fencepost.core.folders.rules import RuleError, apply_rules
from fencepost.core.folders.settings_file import FolderSettings, settings_digest
from fencepost.core.space.addresses import V4
from fencepost.core.storage.items import ItemTooLarge
from fencepost.core.storage.objects import FolderError
from fencepost.core.versions.build import HOLE, Collector


def _answers(collector: Collector, addresses: range) -> dict[int, tuple[str, ...] | None]:
    """What each address answers once flattened (None: NOT_FOUND)."""
    ranges = collector.families[V4]
    found: dict[int, tuple[str, ...] | None] = dict.fromkeys(addresses)
    for start, end, source in ranges.pieces():
        for address in range(max(start, addresses.start), min(end, addresses.stop - 1) + 1):
            found[address] = ranges.values[source]
    return found


def test_constants_are_appended_to_every_row() -> None:
    collector = Collector()
    collector.add(V4, 0, 9, ("AU",))
    collector.add(V4, 20, 29, ("CN",))
    columns = apply_rules(collector, ("country",), (("list", "drop"), ("rank", "1")), ())
    assert columns == ("country", "list", "rank")
    assert collector.families[V4].values == [("AU", "drop", "1"), ("CN", "drop", "1")]


def test_rules_that_cannot_apply_say_why() -> None:
    with pytest.raises(RuleError, match=r"constants name columns the data already has: \['country'\]"):
        apply_rules(Collector(), ("country",), (("country", "x"),), ())
    with pytest.raises(RuleError, match=r"gap_when names columns the data does not have: \['asn'\]"):
        apply_rules(Collector(), ("country",), (), (("asn", "0"),))


def test_a_hole_answers_not_found_inside_a_broader_range_and_ranges_nested_in_it_still_answer() -> None:
    collector = Collector()
    collector.add(V4, 0, 99, ("1", "outer"))
    collector.add(V4, 20, 59, ("0", "Not routed"))  # a hole inside the outer range
    collector.add(V4, 30, 39, ("7", "inner"))  # nested inside the hole
    apply_rules(collector, ("asn", "name"), (), (("asn", "0"),))
    found = _answers(collector, range(100))
    assert [found[a] for a in (0, 19, 20, 29, 30, 39, 40, 59, 60, 99)] == [
        ("1", "outer"),
        ("1", "outer"),
        None,
        None,
        ("7", "inner"),
        ("7", "inner"),
        None,
        None,
        ("1", "outer"),
        ("1", "outer"),
    ]
    ranges = collector.families[V4]
    pieces = ranges.pieces()
    assert all(ranges.values[source] is not HOLE for _, _, source in pieces)
    assert pieces.gap_end(0) == 29  # the gap after the outer range's first piece is the hole's first part


ROW = st.tuples(st.integers(0, 60), st.integers(0, 20), st.sampled_from(["0", "1", "2"]))


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(ROW, min_size=1, max_size=12), merge=st.booleans())
def test_holes_follow_the_overlap_rule_by_brute_force(rows: list[tuple[int, int, str]], merge: bool) -> None:
    collector = Collector()
    for start, length, asn in rows:
        collector.add(V4, start, start + length, (asn,))
    apply_rules(collector, ("asn",), (), (("asn", "0"),))
    ranges = collector.families[V4]
    found: dict[int, str | None] = dict.fromkeys(range(90))
    for start, end, source in ranges.pieces(merge_neighbours=merge):
        for address in range(start, end + 1):
            found[address] = ranges.values[source][0]
    for address in range(90):
        # The overlap rule by brute force: the greatest start, then the narrowest, then the latest row
        containing = [(s, -(s + n), row, asn) for row, (s, n, asn) in enumerate(rows) if s <= address <= s + n]
        winner = max(containing)[3] if containing else None
        assert found[address] == (None if winner == "0" else winner), address


def test_settings_parse_the_new_keys_and_leave_old_digests_alone() -> None:
    raw = {"constants": {"list": "drop", "weight": 2, "on": True}, "gap_when": {"asn": 0}, "locale": "de"}
    parsed = FolderSettings.parse(json.dumps(raw).encode(), "geo/_settings.json")
    assert parsed.constants == (("list", "drop"), ("weight", "2"), ("on", "true"))
    assert parsed.gap_when == (("asn", "0"),)
    assert parsed.locale == "de"
    # Folders that set none of them keep the digest their versions were built with
    assert (
        settings_digest(FolderSettings(max_invalid_rows=3)) == "a5e9793c84c4efb7"
    )  # as computed before these settings existed
    assert settings_digest(parsed) != settings_digest(FolderSettings())
    # The gates are each a setting: a folder with max_change_percent keeps its digest, the new gates at their
    # defaults leave it alone, and any other value changes it
    assert settings_digest(FolderSettings(gates=Gates(max_change_percent=10.0))) == "9dc38bcaab42afe0"
    explicit = FolderSettings.parse(b'{"max_removed_percent": 25, "removed_allowance": 50, "min_ranges": 1}', "x")
    assert settings_digest(explicit) == settings_digest(FolderSettings())
    indexed = FolderSettings.parse(b'{"index": [" asn", "country"], "exports": ["mmdb"], "numeric": ["asn"]}', "x")
    assert (indexed.index, indexed.exports, indexed.numeric) == (("asn", "country"), ("mmdb",), ("asn",))
    assert settings_digest(indexed) != settings_digest(FolderSettings())
    assert settings_digest(FolderSettings.parse(b'{"index": []}', "x")) == settings_digest(FolderSettings())
    cells = FolderSettings.parse(b'{"export_raw_cells": true}', "x")  # how exports are written, not built
    assert (cells.export_raw_cells, settings_digest(cells)) == (True, settings_digest(FolderSettings()))
    off = FolderSettings.parse(b'{"max_removed_percent": null}', "x")
    assert off.gates.max_removed_percent is None
    assert settings_digest(off) != settings_digest(FolderSettings())
    bads: list[dict[str, object]] = [
        {"constants": []},
        {"gap_when": {"asn": [0]}},
        {"locale": "english!"},
        {"join": {"on": "x"}},
        {"max_removed_percent": 101},
        {"max_removed_percent": "25"},
        {"min_ranges": -1},
        {"removed_allowance": 1.5},
        {"max_change_percent": True},
        {"index": "country"},
        {"index": ["country", "country"]},
        {"index": [""]},
        {"index": [f"c{n}" for n in range(9)]},
        {"index": [".."]},  # its values' address would resolve to the dataset's
        {"index": ["."]},
        {"export_raw_cells": "yes"},
        {"exports": ["xlsx"]},
        {"exports": "csv"},
        {"numeric": [1]},
    ]
    for bad in bads:
        with pytest.raises(FolderError, match=r"geo/_settings\.json"):
            FolderSettings.parse(json.dumps(bad).encode(), "geo/_settings.json")


def test_an_explicit_join_completes_rows_from_the_table_and_leaves_unknown_keys_empty() -> None:
    spec = JoinSpec.parse({"object": "owners.csv", "on": "owner_id", "columns": ["owner", "email"]})
    keys = ["geo/ranges.csv", "geo/owners.csv"]
    assert tables_of(keys, spec) == {"geo/owners.csv"}
    assert folder_join(keys, spec, "en") == JoinSpec("geo/owners.csv", "owner_id", ("owner", "email"))
    table = read_table(
        ["owner_id,owner,email,notes\n", "7,Lab,lab@example.com,x\n", "8,Ops,ops@example.com,y\n"], spec, "t"
    )
    collector = Collector()
    collector.add(V4, 0, 9, ("7", "a"))
    collector.add(V4, 20, 29, ("9", "b"))  # no owner 9
    joined = apply_join(collector, ("owner_id", "tag"), spec, table)
    assert joined.columns == ("owner_id", "tag", "owner", "email")
    assert collector.families[V4].values == [("7", "a", "Lab", "lab@example.com"), ("9", "b", "", "")]
    # The row that missed is counted, with its key and where it is
    assert (joined.rows, joined.unjoined, joined.examples) == (2, 1, (("9", "0.0.0.20"),))
    assert joined.miss(spec, "geo/owners.csv") == (
        "1 of 2 rows have a owner_id that geo/owners.csv lacks, e.g. '9' (at 0.0.0.20): their joined columns are empty"
    )
    with pytest.raises(JoinError, match="not an object of the folder"):
        folder_join(["geo/ranges.csv"], spec, "en")
    with pytest.raises(JoinError, match="no columns"):
        read_table(["owner_id,owner\n"], spec, "t")


GEOLITE_KEYS = [
    "city/GeoLite2-City-Blocks-IPv4.csv",
    "city/GeoLite2-City-Blocks-IPv6.csv",
    "city/GeoLite2-City-Locations-de.csv",
    "city/GeoLite2-City-Locations-en.csv",
]


def test_a_geolite2_folder_joins_on_geoname_id_falling_back_to_the_registered_country() -> None:
    join = folder_join(GEOLITE_KEYS, None, "en")
    assert join == JoinSpec("city/GeoLite2-City-Locations-en.csv", "geoname_id", None, "registered_country_geoname_id")
    assert tables_of(GEOLITE_KEYS, join) == set(GEOLITE_KEYS[2:])  # every locations file, not only the one used
    assert folder_join(GEOLITE_KEYS, None, "de") == JoinSpec(
        "city/GeoLite2-City-Locations-de.csv", "geoname_id", None, "registered_country_geoname_id"
    )
    with pytest.raises(JoinError, match=r"no locations file for locale 'fr'; the folder has \['de', 'en'\]"):
        folder_join(GEOLITE_KEYS, None, "fr")
    assert folder_join(GEOLITE_KEYS[:2], None, "en") is None  # blocks alone: an ordinary CIDR dataset
    table = read_table(
        [
            "geoname_id,locale_code,country_iso_code,city_name\n",
            "2077456,en,AU,\n",
            "2151718,en,AU,Melbourne\n",
        ],
        join,
        "locations",
    )
    collector = Collector()
    collector.add(V4, 0, 9, ("2151718", "2077456"))
    collector.add(V4, 10, 19, ("", "2077456"))  # no city: the registered country's location
    joined = apply_join(collector, ("geoname_id", "registered_country_geoname_id"), join, table)
    assert joined.unjoined == 0
    assert joined.columns == (
        "geoname_id",
        "registered_country_geoname_id",
        "locale_code",
        "country_iso_code",
        "city_name",
    )
    assert collector.families[V4].values == [
        ("2151718", "2077456", "en", "AU", "Melbourne"),
        ("", "2077456", "en", "AU", ""),
    ]


def test_a_join_reports_keys_the_table_lacks_and_refuses_a_table_that_holds_a_key_twice() -> None:
    spec = JoinSpec("owners.csv", "owner_id")
    table = read_table(["owner_id,owner\n", "7,Lab\n", "\n", "7,Lab\n", "8,Ops\n"], spec, "owners.csv")
    assert table.rows == {"7": ("Lab",), "8": ("Ops",)}  # the same row twice, and a blank line: harmless
    collector = Collector()
    for k in range(12):
        collector.add(V4, 10 * k, 10 * k + 9, (str(k),))
    collector.add(V4, 200, 209, ("",))  # no key: joins nothing, misses nothing
    joined = apply_join(collector, ("owner_id",), spec, table)
    assert (joined.rows, joined.unjoined) == (13, 10)
    assert [key for key, _ in joined.examples] == ["0", "1", "2", "3", "4"]  # the first five, in address order
    assert joined.examples[2] == ("2", "0.0.0.20")
    # A key twice with different values: which one a row gets would be an accident
    with pytest.raises(JoinError, match=r"owners.csv has owner_id '7' twice with different values, at lines 2 and 4"):
        read_table(["owner_id,owner\n", "7,Lab\n", "8,Ops\n", "7,Other\n"], spec, "owners.csv")
    with pytest.raises(JoinError, match=r"owners\.csv line 3 has 3 cells; its header has 2"):
        read_table(["owner_id,owner\n", "7,Lab\n", "8,Ops,extra\n"], spec, "owners.csv")


def test_constants_or_a_join_that_would_overfill_an_item_are_refused() -> None:
    collector = Collector()
    collector.add(V4, 0, 9, ("7",))
    with pytest.raises(ItemTooLarge, match=r"a row's metadata would take 50\d,\d{3} bytes"):
        apply_rules(collector, ("owner_id",), (("note", "x" * 500_000),), ())
    assert collector.families[V4].values == [("7",)]  # nothing changed
    spec = JoinSpec("owners.csv", "owner_id")
    table = read_table(["owner_id,notes\n", f"7,{'y' * 500_000}\n"], spec, "owners.csv")
    with pytest.raises(ItemTooLarge):
        apply_join(collector, ("owner_id",), spec, table)
