"""MaxMind DB files: every network of the tree, its record as dotted columns, answers agreeing with the file's own
``get()`` at every address (IPv4, IPv6, the IPv4 subtree at ``::/96``, mapped addresses, 6to4 and Teredo aliases)."""

from __future__ import annotations

import gzip
import ipaddress
import random
from bisect import bisect_right
from typing import Any

import pytest

from fencepost.core.folders.limits import Limits
from fencepost.core.formats.base import FileError, ReadOptions
from fencepost.core.formats.choice import reads_whole
from fencepost.core.formats.mmdb import MmdbSummary, Room, default_column, read_mmdb
from fencepost.core.space.addresses import MAPPED_FIRST, MAPPED_LAST, TOP, V4, V6
from fencepost.core.space.aliases import alias_of, carried, parse_alias
from fencepost.core.versions.build import Collector, ProblemLog
from fencepost.loading.reading import LoadFailure, Reader
from fencepost.model import ObjectRef
from tests.fakes import FakeTelemetry
from tests.fakes.bucket import FakeBucket
from tests.fakes.kernel import Faults
from tests.mmdb_files import MAPPED, SIX_TO_FOUR, TEREDO, leaves, mmdb, open_reader, tar_gz

CITY = {
    "city": {"geoname_id": 2950159, "names": {"de": "Berlin", "en": "Berlin", "ja": "ベルリン"}},
    "country": {"iso_code": "DE", "is_in_european_union": True, "names": {"en": "Germany", "fr": "Allemagne"}},
    "location": {"latitude": 52.5, "longitude": 13.25, "accuracy_radius": 20},
    "subdivisions": [{"iso_code": "BE", "names": {"en": "Land Berlin"}}, {"iso_code": "XX"}],
}
NETWORKS: list[tuple[str, Any]] = [
    ("1.0.0.0/24", {"country": {"iso_code": "AU", "names": {"en": "Australia", "de": "Australien"}}}),
    ("1.0.1.0/25", CITY),
    ("81.2.69.0/23", {"country": {"iso_code": "GB"}, "location": {"latitude": -0.75}}),
    ("255.255.255.0/24", {"country": {"iso_code": "ZZ"}}),
    ("2001:db8::/32", {"country": {"iso_code": "US", "names": {"en": "United States"}}, "asn": 64496}),
    ("2a02:ff00::/24", CITY),
    ("ffff::/16", {"country": {"iso_code": "QQ"}}),
]


def _read(data: bytes, options: ReadOptions | None = None, max_ranges: int = 10**7) -> tuple[Collector, MmdbSummary]:
    collector = Collector()
    room = Room(ranges=max_ranges, bytes=1 << 30)
    summary = read_mmdb(
        "geo/x.mmdb", data, options or ReadOptions(), collector, ProblemLog(), limits=Limits(), room=room
    )
    return collector, summary


def _answer(collector: Collector, family: int, address: int) -> tuple[str, ...] | None:
    """What a lookup finds: the flattened piece holding the address."""
    ranges = collector.families[family]
    pieces = ranges.pieces()
    index = bisect_right(pieces.starts, address) - 1
    if index < 0 or pieces.ends[index] < address:
        return None
    return ranges.values[pieces.sources[index]]


def _expected(reader: Any, columns: tuple[str, ...], text: str) -> tuple[str, ...] | None:
    try:
        record = reader.get(text)
    except ValueError:  # an IPv6 address in an IPv4 database
        return None
    if record is None:
        return None
    found = leaves(record)
    return tuple(found.get(column, "") for column in columns)


def _addresses(data: bytes, seed: int = 7) -> list[tuple[int, int]]:
    """Every network edge ±1, in every family and alias, plus random addresses everywhere."""
    rng = random.Random(seed)
    found: list[tuple[int, int]] = []
    for network, _ in open_reader(data):
        first, last = int(network.network_address), int(network.broadcast_address)
        family = V4 if network.version == 4 else V6
        for value in (first - 1, first, first + 1, last - 1, last, last + 1):
            if 0 <= value <= TOP[family]:
                found.append((family, value))
                if family == V4:  # the same address as IPv4-compatible, mapped, 6to4 and Teredo
                    found += [(V6, value), (V6, MAPPED_FIRST | value)]
                    found += [(V6, 0x2002 << 112 | value << 80 | rng.getrandbits(80))]
                    found += [(V6, 0x20010000 << 96 | value << 64 | rng.getrandbits(64))]
    found += [(V4, rng.getrandbits(32)) for _ in range(300)]
    found += [(V6, rng.getrandbits(128)) for _ in range(300)]
    found += [(V6, rng.getrandbits(k)) for k in (16, 32, 33, 48, 64, 96, 97) for _ in range(20)]
    return found


def _check_every_answer(data: bytes, options: ReadOptions | None = None) -> MmdbSummary:
    collector, summary = _read(data, options)
    reader = open_reader(data)
    aliases = tuple(parse_alias(text) for text in summary.aliases)
    for address in _addresses(data):
        family, value = address
        if family == V6 and MAPPED_FIRST <= value <= MAPPED_LAST:  # lookups answer a mapped address as IPv4
            family, value = V4, value - MAPPED_FIRST
        elif family == V6 and (alias := alias_of(aliases, value)) is not None:  # and an aliased one likewise
            family, value = V4, carried(alias, value)
        text = str(ipaddress.IPv4Address(value) if family == V4 else ipaddress.IPv6Address(value))
        assert _answer(collector, family, value) == _expected(reader, summary.columns, text), text
    return summary


def test_an_ipv4_database_answers_as_its_reader() -> None:
    data = mmdb([(cidr, record) for cidr, record in NETWORKS if ":" not in cidr], ip_version=4)
    summary = _check_every_answer(data)
    assert summary.rows == 4
    assert summary.aliases == ()


def test_an_ipv6_database_with_aliases_answers_as_its_reader_everywhere() -> None:
    data = mmdb(NETWORKS, aliases=[SIX_TO_FOUR, TEREDO, MAPPED])
    summary = _check_every_answer(data)
    assert summary.rows == len(NETWORKS)
    assert set(summary.aliases) == {"2002::/16", "2001::/32", "::/96"}
    # Every network is stored once: the IPv4 ones as IPv4, answered for ::/96, 6to4 and Teredo through the aliases
    assert summary.ranges == len(NETWORKS)


def test_an_ipv6_database_without_aliases_answers_as_its_reader() -> None:
    _check_every_answer(mmdb(NETWORKS))


def test_records_become_dotted_columns_and_translated_names_are_left_out_but_english() -> None:
    collector, summary = _read(mmdb(NETWORKS))
    assert summary.columns[:3] == ("country.iso_code", "country.names.en", "city.geoname_id")
    assert "city.names.de" not in summary.columns
    assert "country.names.fr" not in summary.columns
    assert {"subdivisions.0.iso_code", "subdivisions.1.iso_code"} <= set(summary.columns)
    berlin = dict(zip(summary.columns, _answer(collector, V4, 0x01000105) or (), strict=True))
    assert berlin["country.is_in_european_union"] == "true"
    assert berlin["location.latitude"] == "52.5"
    assert berlin["location.accuracy_radius"] == "20"
    assert berlin["subdivisions.0.names.en"] == "Land Berlin"
    assert berlin["asn"] == ""  # a path the record lacks


def test_the_columns_setting_chooses_paths_in_its_order() -> None:
    columns = ("location.latitude", "country.iso_code", "city.names.de", "nowhere")
    options = ReadOptions(columns=columns)
    collector, summary = _read(mmdb(NETWORKS), options)
    assert summary.columns == columns
    assert _answer(collector, V4, 0x01000105) == ("52.5", "DE", "Berlin", "")
    assert _answer(collector, V4, 0x51024501) == ("-0.75", "GB", "", "")
    _check_every_answer(mmdb(NETWORKS, aliases=[SIX_TO_FOUR]), options)


def test_default_columns() -> None:
    assert default_column("city.names.en")
    assert default_column("names")
    assert default_column("country.iso_code")
    assert not default_column("city.names.de")
    assert not default_column("names.fr")


def test_a_database_whose_records_are_not_maps() -> None:
    collector, summary = _read(mmdb([("10.0.0.0/8", "ten"), ("2001:db8::/32", 7)]))
    assert summary.columns == ("value",)
    assert _answer(collector, V4, 10 << 24) == ("ten",)
    assert _answer(collector, V6, 0x20010DB8 << 96) == ("7",)


def test_too_many_ranges_and_corrupt_files_are_file_errors() -> None:
    data = mmdb(NETWORKS, aliases=[SIX_TO_FOUR])
    assert _read(data, max_ranges=len(NETWORKS))[1].ranges == len(NETWORKS)  # one range a network: just fits
    with pytest.raises(FileError, match="more than 10,000,000 rows"):
        _read(data, max_ranges=len(NETWORKS) - 1)
    for broken in (b"", b"not a database", data[: len(data) // 2], data[:40] + b"\xff" * 200 + data[240:]):
        with pytest.raises(FileError, match=r"MaxMind DB"):
            _read(broken)


def _loader(objects: dict[str, bytes], limits: Limits | None = None) -> tuple[Reader, list[ObjectRef]]:
    bucket = FakeBucket(Faults())
    for key, body in objects.items():
        bucket.put_object(key, body)

    class Progress:
        def update_load(self, *_: Any, **__: Any) -> bool:
            return True

    reader = Reader(
        files=bucket,
        datasets=Progress(),
        telemetry=FakeTelemetry(),
        clock=lambda: 0.0,
        monotonic=lambda: 0.0,
        limits=limits or Limits(),
    )
    return reader, bucket.data("geo")


def test_the_loader_reads_a_maxmind_tar_gz_and_a_gzipped_mmdb() -> None:
    data = mmdb(NETWORKS, aliases=[SIX_TO_FOUR])
    archive = tar_gz(
        {"GeoLite2-City_20260101/COPYRIGHT.txt": b"(c)", "GeoLite2-City_20260101/GeoLite2-City.mmdb": data}
    )
    for key, body in (("geo/GeoLite2-City_20260101.tar.gz", archive), ("geo/city.mmdb.gz", gzip.compress(data))):
        assert reads_whole(key)
        reader, objects = _loader({key: body})
        read = reader.read("geo", 1, objects, ReadOptions(), float("inf"))
        assert read.rows == len(NETWORKS)
        assert read.columns[0] == "country.iso_code"
        assert read.bytes == len(data)


def test_the_loader_fails_cleanly_on_bad_objects() -> None:
    data = mmdb(NETWORKS)
    cases = {
        "geo/big.mmdb": (data, Limits(max_object_bytes=1024), "more than 1,024 bytes, decompressed (MAX_OBJECT_BYTES)"),
        "geo/bad.mmdb": (b"\x00" * 2000, None, "not a readable MaxMind DB file"),
        "geo/csv.tar.gz": (tar_gz({"a.csv": b"1.2.3.0/24,x\n"}), None, "the archive holds no .mmdb file"),
        "geo/broken.tgz": (gzip.compress(data)[:300], None, "truncated or corrupt"),
        "geo/big.tar.gz": (tar_gz({"a.mmdb": b"\x00" * (3 << 20)}), Limits(max_object_bytes=1 << 20), "1,048,576"),
        "geo/bomb.tar.gz": (
            tar_gz({"junk.txt": b"\x00" * (3 << 20), "a.mmdb": data}),
            Limits(max_object_bytes=1 << 20),
            "the archive holds more than 2,097,152 bytes, decompressed",
        ),
    }
    for key, (body, limits, message) in cases.items():
        reader, objects = _loader({key: body}, limits)
        with pytest.raises(LoadFailure) as raised:
            reader.read("geo", 1, objects, ReadOptions(), float("inf"))
        assert raised.value.problem.object == key
        assert message in str(raised.value), key


def test_every_object_of_a_dataset_has_the_same_columns() -> None:
    reader, objects = _loader({"geo/a.mmdb": mmdb(NETWORKS), "geo/b.mmdb": mmdb([("10.0.0.0/8", {"x": "y"})])})
    with pytest.raises(LoadFailure, match="all objects of a dataset must have the same columns"):
        reader.read("geo", 1, objects, ReadOptions(), float("inf"))
