"""GeoLite2 profile files (``core.versions.mmdb_export.profile_mmdb``) as MaxMind's own readers take them: ``geoip2``'s
``Reader.country``, ``.city`` and ``.asn``, and libmaxminddb's ``mmdblookup``, which must read the same records."""

from __future__ import annotations

from pathlib import Path

import geoip2.database
import geoip2.errors
import pytest

from fencepost.core.space.addresses import V4, V6, parse_address
from fencepost.core.versions.mmdb_export import profile_mmdb
from fencepost.core.versions.mmdb_profiles import PROFILES
from tests.support.mmdblookup import mmdblookup

COLUMNS = ("start", "country", "region", "city", "postal", "latitude", "longitude", "asn", "as_name")


def _at(text: str) -> int:
    return parse_address(text)[1]


PIECES = [
    (
        V4,
        _at("1.0.0.0"),
        _at("1.0.0.255"),
        ["", "US", "US-CA", "San Francisco", "94107", "37.77", "-122.41", "13335", "CF"],
    ),
    (V4, _at("1.0.1.0"), _at("1.0.3.255"), ["", "None", "", "", "", "", "", "AS4134", "CHINANET"]),
    (V4, _at("1.0.4.0"), _at("1.0.7.255"), ["", "AU", "Victoria", "Melbourne", "", "", "", "0", "Not routed"]),
    (V6, _at("2001:db8::"), _at("2001:db8::ffff"), ["", "DE", "", "Berlin", "10115", "52.52", "13.40", "3320", "DTAG"]),
]
PROBES = ("1.0.0.7", "1.0.2.200", "1.0.5.1", "1.0.8.0", "2001:db8::9", "2001:db8::1:0")


def _file(tmp_path: Path, name: str) -> Path:
    written = profile_mmdb("geo", 4, COLUMNS, PIECES, profile=PROFILES[name], has_ipv6=True, build_epoch=1_790_000_000)
    path = tmp_path / f"{name}.mmdb"
    path.write_bytes(written.data)
    return path


def _read(reader: geoip2.database.Reader, method: str, address: str) -> dict[str, object] | None:
    try:
        found: dict[str, object] = getattr(reader, method)(address).to_dict()
    except geoip2.errors.AddressNotFoundError:
        return None
    return found


def test_the_country_profile_is_read_by_reader_country_and_by_mmdblookup_alike(tmp_path: Path) -> None:
    path = _file(tmp_path, "geolite2-country")
    with geoip2.database.Reader(str(path)) as reader:
        meta = reader.metadata()
        assert (meta.database_type, meta.ip_version, meta.build_epoch) == ("GeoLite2-Country", 6, 1_790_000_000)
        assert meta.description == {
            "en": "Fencepost dataset geo, version 4, in the GeoLite2-Country record shape; 1 range left out (no "
            "ISO 3166-1 country code)"
        }
        answers = {address: _read(reader, "country", address) for address in PROBES}
        us = reader.country("1.0.0.7")
        assert (us.country.iso_code, us.country.name, us.continent.code, us.continent.name) == (
            *("US", "United States"),
            *("NA", "North America"),
        )
        assert (us.registered_country.iso_code, str(us.traits.network)) == ("US", "1.0.0.0/24")
        with pytest.raises(TypeError, match="The city method cannot be used with the GeoLite2-Country database"):
            reader.city("1.0.0.7")
    assert [address for address, answer in answers.items() if answer is None] == [
        "1.0.2.200",
        "1.0.8.0",
        "2001:db8::1:0",
    ]
    for address, answer in answers.items():  # the same record as libmaxminddb reads it
        looked = mmdblookup(path, address)
        if answer is None:
            assert looked is None, address
            continue
        assert looked is not None
        assert {key: looked[key] for key in ("country", "registered_country", "continent")} == {
            key: answer[key] for key in ("country", "registered_country", "continent")
        }


def test_the_city_profile_is_read_by_reader_city_with_its_place_and_location(tmp_path: Path) -> None:
    path = _file(tmp_path, "geolite2-city")
    with geoip2.database.Reader(str(path)) as reader:
        assert reader.metadata().database_type == "GeoLite2-City"
        city = reader.city("1.0.0.7")
        assert (city.city.name, city.subdivisions.most_specific.iso_code, city.postal.code) == (
            "San Francisco",
            "CA",
            "94107",
        )
        assert (city.location.latitude, city.location.longitude, city.country.iso_code) == (37.77, -122.41, "US")
        melbourne = reader.city("1.0.5.1")
        assert (melbourne.city.name, melbourne.subdivisions.most_specific.name, melbourne.location.latitude) == (
            *("Melbourne", "Victoria"),
            None,
        )
        berlin = reader.city("2001:db8::9")
        assert (berlin.city.name, berlin.continent.code, berlin.postal.code) == ("Berlin", "EU", "10115")
    assert mmdblookup(path, "1.0.0.7") == {
        "country": {"iso_code": "US", "names": {"en": "United States"}},
        "registered_country": {"iso_code": "US", "names": {"en": "United States"}},
        "continent": {"code": "NA", "names": {"en": "North America"}},
        "city": {"names": {"en": "San Francisco"}},
        "subdivisions": [{"iso_code": "CA"}],
        "postal": {"code": "94107"},
        "location": {"latitude": 37.77, "longitude": -122.41},
    }
    assert mmdblookup(path, "1.0.2.200") is None


def test_the_asn_profile_is_read_by_reader_asn_with_an_unsigned_number(tmp_path: Path) -> None:
    path = _file(tmp_path, "geolite2-asn")
    with geoip2.database.Reader(str(path)) as reader:
        assert reader.metadata().database_type == "GeoLite2-ASN"
        found = {address: _read(reader, "asn", address) for address in PROBES}
        with pytest.raises(TypeError, match="The country method cannot be used with the GeoLite2-ASN database"):
            reader.country("1.0.0.7")
    numbers = {a: (r["autonomous_system_number"], r["autonomous_system_organization"]) for a, r in found.items() if r}
    assert numbers == {"1.0.0.7": (13335, "CF"), "1.0.2.200": (4134, "CHINANET"), "2001:db8::9": (3320, "DTAG")}
    assert found["1.0.5.1"] is None  # AS 0: not routed, left out
    for address, (number, name) in numbers.items():
        assert mmdblookup(path, address) == {"autonomous_system_number": number, "autonomous_system_organization": name}
