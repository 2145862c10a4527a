"""GeoLite2 profile exports through the real handlers (moto's S3 and SQS server, DynamoDB Local), read by MaxMind's own
readers: ``geoip2``'s ``Reader.country``, ``.city`` and ``.asn``, and libmaxminddb's ``mmdblookup``. Each answers a
sample of addresses as ``GET /lookup`` answers them on the same version; what the data cannot answer is refused,
by the route and by the folder's settings, with the profile, the field and the columns."""

from __future__ import annotations

import ipaddress
import json
import random
from pathlib import Path
from typing import Any

import geoip2.database
import geoip2.errors
import maxminddb

from fencepost.core.space.addresses import V4, V6, format_address
from fencepost.core.versions.countries import REGIONS, country
from tests.support import V4_FILE, V6_FILE, read_tsv
from tests.support.lookups import batch_lookup, exported, request_export
from tests.support.mmdblookup import mmdblookup
from tests.support.stacks import Stack

GEOFEED = """start,end,country,state,city,zip5,latitude,longitude
1.0.0.0,1.0.0.255,US,US-CA,San Francisco,94107,37.77,-122.41
1.0.1.0,1.0.3.255,AU,Victoria,Melbourne,3000,-37.81,144.96
1.0.4.0,1.0.7.255,DE,,Berlin,10115,,
1.0.8.0,1.0.8.255,,,,,,
2001:db8::,2001:db8::ffff,JP,Tokyo,Tokyo,100-0001,35.68,139.69
"""


def _random_addresses(rows: list[list[str]], family: int, count: int, seed: int) -> list[str]:
    """Addresses anywhere from the first row's start to the last row's end (IPv4), or inside random rows (IPv6,
    whose rows are too far apart for addresses drawn across them to land in any)."""
    rng = random.Random(seed)
    if family == V6:
        bounds = [(int(ipaddress.ip_address(row[0])), int(ipaddress.ip_address(row[1]))) for row in rows]
        return [format_address(family, rng.randint(*rng.choice(bounds))) for _ in range(count)]
    low, high = int(ipaddress.ip_address(rows[0][0])), int(ipaddress.ip_address(rows[-1][1]))
    return [format_address(family, rng.randint(low, high)) for _ in range(count)]


def _answer(reader: geoip2.database.Reader, method: str, address: str) -> Any:
    try:
        return getattr(reader, method)(address)
    except geoip2.errors.AddressNotFoundError:
        return None


def _continent(code: str) -> str | None:
    """The continent a country (or a region's) code is answered with."""
    known = country(code)
    return REGIONS.get(code) if known is None else known.continent


def _exported_rows(
    stack: Stack, tmp_path: Path, rows: list[list[str]], columns: tuple[str, ...], *, profile: str, family: int
) -> tuple[Path, list[str], list[dict[str, Any]]]:
    """The rows loaded as dataset ``geo``, exported with ``profile`` (asked for, written, downloaded), and 1,500
    random addresses with their lookups' answers."""
    stack.put("geo/_settings.json", json.dumps({"columns": list(columns)}))
    stack.put("geo/ranges.tsv", "".join("\t".join(row) + "\n" for row in rows))
    stack.drain()
    path = tmp_path / f"geo.{profile}.mmdb"
    path.write_bytes(exported(stack, "geo", format="mmdb", profile=profile))
    addresses = _random_addresses(rows, family, 1500, seed=21)
    return path, addresses, batch_lookup(stack, "geo", addresses)


def test_the_country_profile_of_the_shared_ipv4_file_answers_as_lookups_do(stack: Stack, tmp_path: Path) -> None:
    rows = read_tsv(V4_FILE, 215_000)[200_000:215_000]
    path, addresses, answers = _exported_rows(
        stack, tmp_path, rows, ("country",), profile="geolite2-country", family=V4
    )
    wrong: list[tuple[object, ...]] = []
    found = 0
    with geoip2.database.Reader(str(path)) as reader:
        assert reader.metadata().database_type == "GeoLite2-Country"
        for address, answer in zip(addresses, answers, strict=True):
            model = _answer(reader, "country", address)
            code = (answer.get("data") or {}).get("country", "")
            if country(code) is None and code not in REGIONS:  # None, Unknown, ZZ, or no piece: not in the file
                if model is not None:
                    wrong.append((address, answer, model.to_dict()))
                continue
            found += 1
            got = None if model is None else (model.country.iso_code, model.continent.code, str(model.traits.network))
            if got != (None if code in REGIONS else code, _continent(code), answer["match"]["network"]):
                wrong.append((address, answer, got))
    assert wrong == []
    assert found > 700  # most of the sample has a country
    for address, answer in list(zip(addresses, answers, strict=True))[:40]:  # libmaxminddb reads the same
        looked = mmdblookup(path, address)
        code = (answer.get("data") or {}).get("country", "")
        assert (looked or {}).get("continent", {}).get("code") == _continent(code), address
        assert (looked or {}).get("country", {}).get("iso_code") == (code if country(code) else None), address


def test_the_asn_profile_of_the_shared_ipv6_file_answers_as_lookups_do(stack: Stack, tmp_path: Path) -> None:
    rows = read_tsv(V6_FILE, 90_000)[80_000:90_000]
    columns = ("asn", "country", "description")
    path, addresses, answers = _exported_rows(stack, tmp_path, rows, columns, profile="geolite2-asn", family=V6)
    wrong: list[tuple[object, ...]] = []
    found = 0
    with geoip2.database.Reader(str(path)) as reader:
        assert (reader.metadata().database_type, reader.metadata().ip_version) == ("GeoLite2-ASN", 6)
        for address, answer in zip(addresses, answers, strict=True):
            model = _answer(reader, "asn", address)
            data = answer.get("data") or {}
            if data.get("asn", "0") == "0":  # not routed, or no piece: not in the file
                if model is not None:
                    wrong.append((address, answer, model.to_dict()))
                continue
            found += 1
            expected = (int(data["asn"]), data["description"], answer["match"]["network"])
            got = (
                None
                if model is None
                else (model.autonomous_system_number, model.autonomous_system_organization, str(model.network))
            )
            if got != expected:
                wrong.append((address, expected, got))
    assert wrong == []
    assert found > 700  # two thirds of the rows are routed
    for address, answer in list(zip(addresses, answers, strict=True))[:40]:
        data = answer.get("data") or {}
        want = None
        if data.get("asn", "0") != "0":
            want = {"autonomous_system_number": int(data["asn"]), "autonomous_system_organization": data["description"]}
        assert mmdblookup(path, address) == want, address


def test_a_folders_city_profile_is_written_once_live_with_its_mapping_and_read_alike(
    stack: Stack, tmp_path: Path
) -> None:
    settings = {"exports": ["mmdb:geolite2-city"], "mmdb_profile_columns": {"region": "state", "postal": "zip5"}}
    stack.put("places/_settings.json", json.dumps(settings))
    stack.put("places/feed.csv", GEOFEED)
    stack.drain()
    keys = {o["Key"] for o in stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix="_exports/places/")["Contents"]}
    assert keys == {"_exports/places/1.geolite2-city.mmdb"}  # no request needed, no marker left
    assert request_export(stack, "places", format="mmdb", profile="geolite2-city")["statusCode"] == 303
    path = tmp_path / "places.mmdb"
    body = stack.s3.get_object(Bucket=stack.bucket, Key="_exports/places/1.geolite2-city.mmdb")["Body"].read()
    path.write_bytes(body)
    probes = ["1.0.0.9", "1.0.2.1", "1.0.5.5", "1.0.8.8", "1.0.9.0", "2001:db8::1"]
    answers = dict(zip(probes, batch_lookup(stack, "places", probes), strict=True))
    with geoip2.database.Reader(str(path)) as reader:
        cities = {address: _answer(reader, "city", address) for address in probes}
    assert [address for address, city in cities.items() if city is None] == ["1.0.8.8", "1.0.9.0"]
    for address, city in cities.items():
        if city is None:
            continue
        data = answers[address]["data"]
        assert (city.country.iso_code, city.city.name, city.postal.code) == (
            data["country"],
            data["city"],
            data["zip5"],
        )
        assert str(city.traits.network) == answers[address]["match"]["network"]
    sf, melbourne, berlin = cities["1.0.0.9"], cities["1.0.2.1"], cities["1.0.5.5"]
    assert (sf.subdivisions.most_specific.iso_code, sf.location.latitude, sf.continent.name) == (
        "CA",
        37.77,
        "North America",
    )
    assert (melbourne.subdivisions.most_specific.name, melbourne.country.name) == ("Victoria", "Australia")
    assert (berlin.location.latitude, berlin.subdivisions.most_specific.name) == (None, None)
    raw = maxminddb.open_database(str(path))
    for address in probes:  # libmaxminddb reads each record whole as the Python reader does
        assert mmdblookup(path, address) == raw.get(address), address
    # A new mapping builds a new version; each version's exports, whenever written, read the mapping it was built with
    mapping = {"region": "state", "postal": "zip5", "country_name": "city"}
    stack.put("places/_settings.json", json.dumps({"mmdb_profile_columns": mapping}))
    stack.drain()
    assert stack.dataset("places")["version"] == 2
    for version, name in (("1", "United States"), ("2", "San Francisco")):
        later = tmp_path / f"country-{version}.mmdb"
        later.write_bytes(exported(stack, "places", format="mmdb", profile="geolite2-country", version=version))
        with geoip2.database.Reader(str(later)) as reader:
            assert reader.country("1.0.0.9").country.name == name, version


def test_a_profile_the_data_cannot_answer_is_refused_by_the_route_and_by_the_folder(stack: Stack) -> None:
    stack.put("geo/ranges.csv", "start,end,country\n1.0.0.0,1.0.0.255,AU\n")
    stack.drain()
    refused = request_export(stack, "geo", format="mmdb", profile="geolite2-asn")
    error = json.loads(refused["body"])["error"]
    assert (refused["statusCode"], error["code"]) == (400, "INVALID_REQUEST")
    assert error["message"].startswith("version 1 of dataset 'geo': profile geolite2-asn needs a column for asn")
    assert error["message"].endswith("its columns are ['country']")
    for query, told in (
        ({"format": "mmdb", "profile": "geolite2-isp"}, "invalid profile 'geolite2-isp': one of geolite2-country, "),
        ({"format": "csv", "profile": "geolite2-asn"}, "profile applies to format=mmdb only, not csv"),
    ):
        answer = request_export(stack, "geo", **query)
        assert answer["statusCode"] == 400
        assert json.loads(answer["body"])["error"]["message"].startswith(told)
    assert "Contents" not in stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix="_exports/")  # nothing asked
    # The country profile it can answer: asked for, written, and deleted with its version two versions later
    exported(stack, "geo", format="mmdb", profile="geolite2-country")
    # A folder asking for what its data cannot answer fails its build, and version 1 keeps answering
    for settings, reason in (
        (
            {"exports": ["mmdb:geolite2-asn"]},
            "exports names mmdb:geolite2-asn, and profile geolite2-asn needs a column",
        ),
        ({"mmdb_profile_columns": {"country": "cc"}}, "mmdb_profile_columns answers country with 'cc', which is not"),
    ):
        stack.put("geo/_settings.json", json.dumps(settings))
        stack.drain()
        record = stack.dataset("geo")
        assert (record["status"], record["version"]) == ("FAILED", 1)
        assert reason in record["load"]["problems"][0]["reason"]
    stack.put("geo/_settings.json", "{}")
    for code in ("DE", "IT"):
        stack.put("geo/ranges.csv", f"start,end,country\n1.0.0.0,1.0.0.255,{code}\n")
        stack.drain()
    assert stack.dataset("geo")["status"] == "READY"
    assert "Contents" not in stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix="_exports/geo/1.")
