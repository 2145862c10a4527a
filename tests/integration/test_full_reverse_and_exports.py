"""Reverse lookups and exports on the whole shared files (``make test-slow``): 1,000 random values of an indexed
column list exactly the pieces whose lookups answer them, and the MaxMind DB export answers 100,000 random
addresses as ``GET /lookup`` does."""

from __future__ import annotations

import ipaddress
import json
import random
from pathlib import Path

import maxminddb
import pytest

from fencepost.core.space.addresses import FAMILIES, V4, format_address
from tests.support import V4_FILE, V6_FILE, family_ranges, read_tsv
from tests.support.lookups import all_pages, batch_lookup, exported
from tests.support.stacks import Stack

pytestmark = pytest.mark.slow
FULL = {"CHUNK_ITEMS": "5000", "WRITE_THREADS": "8"}


@pytest.mark.parametrize("stack", [FULL], indirect=True)
def test_1000_random_asns_list_exactly_the_pieces_that_answer_them(stack: Stack) -> None:
    rows = read_tsv(V6_FILE)
    stack.put("geo/_settings.json", json.dumps({"index": ["col3"]}))
    stack.put("geo/full.tsv", V6_FILE.read_bytes())
    stack.drain(timeout=1800)
    families = family_ranges(rows)
    expected: dict[str, list[tuple[str, str]]] = {}
    for family in FAMILIES:
        ranges = families[family]
        for start, end, source in ranges.pieces():
            pair = (format_address(family, start), format_address(family, end))
            expected.setdefault(ranges.values[source][0], []).append(pair)
    rng = random.Random(11)
    for value in rng.sample(sorted(expected), 1000):
        found = [(r["start"], r["end"]) for r in all_pages(stack, where=f"col3:{value}", limit="1000")]
        assert found == expected[value], value
    sample = rng.sample([(v, p) for v, pieces in expected.items() for p in pieces], 2000)
    answers = batch_lookup(stack, "geo", [start for _, (start, _) in sample])
    assert [answer["data"]["col3"] for answer in answers] == [value for value, _ in sample]


@pytest.mark.parametrize("stack", [FULL], indirect=True)
def test_the_mmdb_export_of_the_ipv4_file_answers_100000_addresses_as_lookups_do(stack: Stack, tmp_path: Path) -> None:
    stack.put("geo/full.tsv", V4_FILE.read_bytes())
    stack.drain(timeout=1800)
    path = tmp_path / "geo.mmdb"
    path.write_bytes(exported(stack, "geo", format="mmdb"))
    reader = maxminddb.open_database(str(path))
    rng = random.Random(13)
    addresses = [format_address(V4, rng.randrange(1 << 32)) for _ in range(100_000)]
    wrong = []
    for offset in range(0, len(addresses), 100):
        batch = addresses[offset : offset + 100]
        for address, answer in zip(batch, batch_lookup(stack, "geo", batch), strict=True):
            record, prefix = reader.get_with_prefix_len(address)
            data = answer.get("data")
            network = str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))
            if record != data or (data is not None and network != answer["match"]["network"]):
                wrong.append((address, record, answer))
    assert wrong == []
    assert reader.metadata().ip_version == 4  # an IPv4-only version: an IPv4 database
