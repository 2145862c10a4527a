"""Exports through the real handlers (moto's S3 and SQS server, DynamoDB Local): asked for with
``GET /datasets/{name}/export``, written by the loader from its data queue, linked to with ``303``; the CSV
re-uploaded builds the same pieces, the MaxMind DB answers as lookups do."""

from __future__ import annotations

import gzip
import ipaddress
import json
import random
from pathlib import Path

import maxminddb
import pytest

from fencepost.core.space.addresses import V4, format_address
from fencepost.core.storage.objects import pieces_key
from tests.support import V4_FILE, read_tsv
from tests.support.lookups import batch_lookup, exported, request_export
from tests.support.stacks import Stack

ROWS = """start,end,country,asn
1.0.0.0,1.0.0.255,AU,13335
1.0.1.0,1.0.3.255,"Hong Kong, SAR",4134
1.0.4.0,1.0.9.255,AU,38803
2.0.0.0,2.0.0.255,FR,3215
2.0.0.128,2.0.0.191,AU,1
2001:db8::,2001:db8::ffff,AU,64496
"""


def _pieces(stack: Stack, dataset: str, version: int) -> bytes:
    key = pieces_key(dataset, version)
    return gzip.decompress(stack.s3.get_object(Bucket=stack.bucket, Key=key)["Body"].read())


def _bounds(pieces: bytes) -> list[list[str]]:
    return [line.split("\t")[:3] for line in pieces.decode().splitlines()]


def test_a_csv_export_reuploaded_builds_the_same_pieces(stack: Stack) -> None:
    stack.put("geo/ranges.csv", ROWS)
    stack.drain()
    body = exported(stack, "geo", format="csv")
    lines = body.decode().splitlines()
    assert lines[:3] == [
        "start,end,country,asn",
        "1.0.0.0,1.0.0.255,AU,13335",
        '1.0.1.0,1.0.3.255,"Hong Kong, SAR",4134',
    ]
    assert lines[-1] == "2001:db8::,2001:db8::ffff,AU,64496"
    assert len(lines) == 1 + 7  # the nested AU range splits FR in two
    stack.put("copy/ranges.csv", body)
    stack.drain()
    assert stack.dataset("copy")["status"] == "READY"
    # The same pieces with the same data; only the two FR pieces, cut from one range, now answer their own bounds
    # as their range (a CSV row cannot say it was part of a larger one)
    assert _bounds(_pieces(stack, "copy", 1)) == _bounds(_pieces(stack, "geo", 1))
    probes = ["1.0.0.7", "1.0.2.200", "1.0.9.255", "2.0.0.5", "2.0.0.130", "2.0.0.200", "2001:db8::1", "1.0.10.0"]
    original, copied = batch_lookup(stack, "geo", probes), batch_lookup(stack, "copy", probes)
    assert [(a.get("data"), a.get("match")) for a in copied] == [(a.get("data"), a.get("match")) for a in original]
    # Without overlapping rows, the pieces and their answers are the same: an empty diff
    flat = "".join(line + "\n" for line in ROWS.splitlines() if not line.startswith("2.0.0.128"))
    stack.put("flat/ranges.csv", flat)
    stack.drain()
    stack.put("again/ranges.csv", exported(stack, "flat", format="csv"))
    stack.drain()
    assert _pieces(stack, "again", 1) == _pieces(stack, "flat", 1)


def test_a_cidr_export_answers_as_the_version_does(stack: Stack) -> None:
    stack.put("geo/ranges.csv", ROWS)
    stack.drain()
    lines = exported(stack, "geo", format="cidr").decode().splitlines()
    assert lines[0] == "network\tcountry\tasn"
    assert lines[1:4] == [
        "1.0.0.0/24\tAU\t13335",
        "1.0.1.0/24\tHong Kong, SAR\t4134",
        "1.0.2.0/23\tHong Kong, SAR\t4134",
    ]
    stack.put("nets/ranges.tsv", "\n".join(lines) + "\n")
    stack.drain()
    probes = ["1.0.0.7", "1.0.2.200", "1.0.9.255", "2.0.0.130", "2.0.0.200", "2001:db8::1", "1.0.10.0"]
    assert [a.get("data") for a in batch_lookup(stack, "nets", probes)] == [
        a.get("data") for a in batch_lookup(stack, "geo", probes)
    ]


def test_an_export_is_asked_for_once_kept_per_version_and_refused_clearly(stack: Stack) -> None:
    stack.put("geo/ranges.csv", ROWS)
    stack.drain()
    assert request_export(stack, "geo")["statusCode"] == 202  # csv by default
    stack.drain()
    key = "_exports/geo/1.csv"
    written = stack.s3.head_object(Bucket=stack.bucket, Key=key)["LastModified"]
    assert request_export(stack, "geo", version="1")["statusCode"] == 303
    stack.drain()  # nothing more to write: the object is not written again
    assert stack.s3.head_object(Bucket=stack.bucket, Key=key)["LastModified"] == written
    for query, status, code in (
        ({"format": "xlsx"}, 400, "INVALID_REQUEST"),
        ({"version": "0"}, 400, "INVALID_REQUEST"),
        ({"version": "x"}, 400, "INVALID_REQUEST"),
        ({"version": "7"}, 410, "VERSION_GONE"),
    ):
        response = request_export(stack, "geo", **query)
        assert (response["statusCode"], json.loads(response["body"])["error"]["code"]) == (status, code), query
    assert request_export(stack, "nosuch")["statusCode"] == 404
    # Two versions later, version 1 and its export are deleted
    for country in ("DE", "IT"):
        stack.put("geo/ranges.csv", ROWS.replace("FR", country))
        stack.drain()
    assert "Contents" not in stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix="_exports/geo/1.")
    assert request_export(stack, "geo", version="1")["statusCode"] == 410


def test_the_mmdb_export_answers_random_addresses_as_lookups_do(stack: Stack, tmp_path: Path) -> None:
    rows = read_tsv(V4_FILE, 215_000)[200_000:215_000]
    stack.put("geo/ranges.tsv", "".join("\t".join(row) + "\n" for row in rows))
    stack.drain()
    body = exported(stack, "geo", format="mmdb")
    path = tmp_path / "geo.mmdb"
    path.write_bytes(body)
    reader = maxminddb.open_database(str(path))
    assert (reader.metadata().database_type, reader.metadata().ip_version) == ("geo", 4)
    rng = random.Random(9)
    low, high = int(ipaddress.ip_address(rows[0][0])), int(ipaddress.ip_address(rows[-1][1]))
    addresses = [format_address(V4, rng.randint(low - 1000, high + 1000)) for _ in range(3000)]
    answers = batch_lookup(stack, "geo", addresses)
    wrong: list[tuple[object, ...]] = []
    for address, answer in zip(addresses, answers, strict=True):
        record, prefix = reader.get_with_prefix_len(address)
        if answer.get("data") is None:
            if record is not None:
                wrong.append((address, record, answer))
            continue
        network = ipaddress.ip_network(f"{address}/{prefix}", strict=False)
        if record != answer["data"] or str(network) != answer["match"]["network"]:
            wrong.append((address, record, prefix, answer))
    assert wrong == []


def test_a_folders_exports_are_written_once_each_version_is_live_with_its_numeric_columns(
    stack: Stack, tmp_path: Path
) -> None:
    stack.put("geo/_settings.json", json.dumps({"exports": ["mmdb", "csv"], "numeric": ["asn"]}))
    stack.put("geo/ranges.csv", ROWS)
    stack.drain()
    assert stack.dataset("geo")["status"] == "READY"
    keys = {o["Key"] for o in stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix="_exports/geo/")["Contents"]}
    assert keys == {"_exports/geo/1.mmdb", "_exports/geo/1.csv"}  # no request needed, no marker left
    assert request_export(stack, "geo", format="mmdb")["statusCode"] == 303
    path = tmp_path / "geo.mmdb"
    path.write_bytes(stack.s3.get_object(Bucket=stack.bucket, Key="_exports/geo/1.mmdb")["Body"].read())
    assert maxminddb.open_database(str(path)).get("1.0.5.1") == {"country": "AU", "asn": 38803}  # a number
    # A folder naming a numeric column its data lacks fails, and version 1 keeps answering
    stack.put("geo/_settings.json", json.dumps({"numeric": ["city"]}))
    stack.drain()
    record = stack.dataset("geo")
    assert (record["status"], record["version"]) == ("FAILED", 1)
    assert "numeric names columns the data does not have: ['city']" in record["load"]["problems"][0]["reason"]


@pytest.mark.parametrize("stack", [{"MMDB_EXPORT_MAX_RANGES": "5"}], indirect=True)
def test_a_maxmind_db_export_of_more_ranges_than_allowed_is_refused_before_anything_is_asked(stack: Stack) -> None:
    stack.put("geo/ranges.csv", ROWS)
    stack.drain()
    refused = request_export(stack, "geo", format="mmdb")
    assert (refused["statusCode"], json.loads(refused["body"])["error"]["code"]) == (400, "EXPORT_TOO_LARGE")
    assert "MMDB_EXPORT_MAX_RANGES" in json.loads(refused["body"])["error"]["message"]
    assert request_export(stack, "geo", format="csv")["statusCode"] == 202  # the other formats stream: no limit


@pytest.mark.parametrize("stack", [{"MMDB_EXPORT_MAX_RANGES": "5"}], indirect=True)
def test_the_maxmind_db_limit_counts_the_ranges_of_the_version_asked_for(stack: Stack) -> None:
    # Given a large version 1, then a small version 2 (the folder lets it shrink)
    stack.put("geo/_settings.json", json.dumps({"max_removed_percent": None}))
    stack.put("geo/ranges.csv", ROWS)
    stack.drain()
    stack.put("geo/ranges.csv", "start,end,country\n1.0.0.0,1.0.0.255,AU\n")
    stack.drain()
    assert stack.dataset("geo")["version"] == 2
    # Then the small live version exports, and the large previous one is refused by its own size
    assert request_export(stack, "geo", format="mmdb")["statusCode"] == 202
    refused = request_export(stack, "geo", format="mmdb", version="1")
    assert (refused["statusCode"], json.loads(refused["body"])["error"]["code"]) == (400, "EXPORT_TOO_LARGE")
    assert "version 1 of dataset 'geo'" in json.loads(refused["body"])["error"]["message"]
