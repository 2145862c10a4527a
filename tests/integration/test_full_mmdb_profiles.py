"""The GeoLite2 profiles on the whole shared files (``make test-slow``): the IPv4 country file as ``geolite2-country``
and the IPv6 file as ``geolite2-asn``, each read by ``geoip2``'s Reader for 20,000 random addresses and by
``mmdblookup`` for 200 of them, answering as ``GET /lookup`` does; the ranges left out counted in the description."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import geoip2.database
import geoip2.errors
import pytest

from fencepost.core.space.addresses import V4, V6, format_address, parse_address
from fencepost.core.versions.countries import REGIONS, country
from tests.support import V4_FILE, V6_FILE, read_tsv
from tests.support.lookups import batch_lookup, exported
from tests.support.mmdblookup import mmdblookup
from tests.support.stacks import Stack

pytestmark = pytest.mark.slow
FULL = {"CHUNK_ITEMS": "5000", "WRITE_THREADS": "8"}


def _expected_country(data: dict[str, str] | None) -> tuple[str | None, str | None] | None:
    """(country code, continent) a country file's answer is read as; None when the file leaves it out."""
    code = (data or {}).get("country", "")
    known = country(code)
    if known is not None:
        return code, known.continent
    return (None, REGIONS[code]) if code in REGIONS else None


def _expected_asn(data: dict[str, str] | None) -> dict[str, Any] | None:
    asn = (data or {}).get("asn", "0")
    if asn == "0":
        return None
    assert data is not None
    return {"autonomous_system_number": int(asn), "autonomous_system_organization": data["description"]}


def _compare(stack: Stack, path: Path, addresses: list[str], read: Any, expected: Any) -> int:
    """How many addresses the file holds; fails naming those the reader answers otherwise than the lookups."""
    wrong, held = [], 0
    with geoip2.database.Reader(str(path)) as reader:
        for offset in range(0, len(addresses), 100):
            batch = addresses[offset : offset + 100]
            for address, answer in zip(batch, batch_lookup(stack, "geo", batch), strict=True):
                want = expected(answer.get("data"))
                try:
                    got = read(reader, address)
                except geoip2.errors.AddressNotFoundError:
                    got = None
                held += want is not None
                if got != want:
                    wrong.append((address, want, got))
    assert wrong == []
    return held


@pytest.mark.parametrize("stack", [FULL], indirect=True)
def test_the_whole_ipv4_file_as_geolite2_country_answers_as_lookups_do(stack: Stack, tmp_path: Path) -> None:
    stack.put("geo/_settings.json", json.dumps({"columns": ["country"]}))
    stack.put("geo/full.tsv", V4_FILE.read_bytes())
    stack.drain(timeout=1800)
    path = tmp_path / "country.mmdb"
    path.write_bytes(exported(stack, "geo", format="mmdb", profile="geolite2-country"))
    rng = random.Random(31)
    addresses = [format_address(V4, rng.randrange(1 << 32)) for _ in range(20_000)]

    def read(reader: geoip2.database.Reader, address: str) -> tuple[str | None, str | None]:
        model = reader.country(address)
        return model.country.iso_code, model.continent.code

    assert _compare(stack, path, addresses, read, _expected_country) > 10_000
    with geoip2.database.Reader(str(path)) as reader:
        description = reader.metadata().description["en"]
    assert description.endswith("; 64,729 ranges left out (no ISO 3166-1 country code)")
    answers = batch_lookup(stack, "geo", addresses[:200])
    for address, answer in zip(addresses[:200], answers, strict=True):
        looked = mmdblookup(path, address)
        found = None if looked is None else (looked.get("country", {}).get("iso_code"), looked["continent"]["code"])
        assert found == _expected_country(answer.get("data")), address


@pytest.mark.parametrize("stack", [FULL], indirect=True)
def test_the_whole_ipv6_file_as_geolite2_asn_answers_as_lookups_do(stack: Stack, tmp_path: Path) -> None:
    stack.put("geo/_settings.json", json.dumps({"columns": ["asn", "country", "description"]}))
    stack.put("geo/full.tsv", V6_FILE.read_bytes())
    stack.drain(timeout=1800)
    path = tmp_path / "asn.mmdb"
    path.write_bytes(exported(stack, "geo", format="mmdb", profile="geolite2-asn"))
    rng = random.Random(32)
    bounds = [(parse_address(row[0])[1], parse_address(row[1])[1]) for row in read_tsv(V6_FILE)]
    routed = [format_address(V6, rng.randint(*rng.choice(bounds))) for _ in range(20_000)]  # inside random rows

    def read(reader: geoip2.database.Reader, address: str) -> dict[str, Any]:
        model = reader.asn(address)
        return {
            "autonomous_system_number": model.autonomous_system_number,
            "autonomous_system_organization": model.autonomous_system_organization,
        }

    assert _compare(stack, path, routed, read, _expected_asn) > 10_000  # two thirds of the rows are routed
    answers = batch_lookup(stack, "geo", routed[:200])
    for address, answer in zip(routed[:200], answers, strict=True):
        assert mmdblookup(path, address) == _expected_asn(answer.get("data")), address
