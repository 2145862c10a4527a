"""Helpers shared by tests: reading the shared data files, and publishing a dataset version directly."""

from __future__ import annotations

import gzip
import itertools
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from fencepost.aws.dynamo import Tables
from fencepost.aws.dynamo.serving import pointer_item
from fencepost.aws.dynamo.timelines import event_item
from fencepost.aws.dynamo.writer import BulkWriter
from fencepost.core.space.addresses import FAMILIES, parse_address
from fencepost.core.versions.build import FamilyRanges
from fencepost.model import DatasetRecord, LivePointer, LoadStatus, VersionHeader, VersionInfo

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
EVENTS = ROOT / "events"
# The environment every test runs in: no test may reach real AWS (fake credentials, one region everywhere)
FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
    "POWERTOOLS_METRICS_NAMESPACE": "FencepostTests",
    "DYNAMODB_READ_TIMEOUT_SECONDS": "20",  # DynamoDB Local on a busy 2-core machine
}
V4_FILE = DATA / "iptoasn-ip2country-v4-20241107.tsv.gz"
V6_FILE = DATA / "iptoasn-ip2asn-v6-20251028.tsv.gz"
SMALL_FILE = DATA / "asn-db-ip2asn-v4-subset-2019.tsv"


def fake_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    """``FAKE_AWS`` set through ``monkeypatch``, and no profile: no test may reach real AWS."""
    for name, value in FAKE_AWS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)


def read_tsv(path: Path, limit: int | None = None) -> list[list[str]]:
    """Rows of a shared tab-separated file (no header), as lists of cells."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [line.rstrip("\n").split("\t") for line in itertools.islice(handle, limit)]


def family_ranges(rows: Iterable[Sequence[str]]) -> dict[int, FamilyRanges]:
    """Parse ``start, end, values...`` rows into ranges per family, in row order."""
    ranges = {family: FamilyRanges(family) for family in FAMILIES}
    for row in rows:
        family, start = parse_address(row[0])
        _, end = parse_address(row[1])
        ranges[family].add(start, end, tuple(row[2:]))
    return ranges


PUBLISHED_AT = 1_795_219_200.0  # when ``publish`` makes version 1 live, in the dataset's history


def publish(tables: Tables, dataset: str, version: int, ranges: dict[int, FamilyRanges], columns: Sequence[str]) -> int:
    """Write a complete version and make it live; returns the number of items stored."""
    directories = {}
    written = 0
    for family, family_ranges_ in ranges.items():
        pieces = family_ranges_.pieces()
        items = list(family_ranges_.items(dataset, version, pieces))
        BulkWriter(tables.table).put_all(items)
        written += len(items)
        directories[family] = family_ranges_.directory(pieces)
    info = VersionInfo(dataset, version, tuple(columns), directories, gaps=True)
    total = sum(len(r) for r in ranges.values())
    header = VersionHeader(tuple(columns), total, written, [], "2026-11-21T00:00:00+00:00", gaps=True)
    tables.versions.put(info, header)
    tables.datasets.put(DatasetRecord(name=dataset, live=version, status=LoadStatus.READY, ranges=total))
    tables.table.put(pointer_item(dataset, LivePointer(dataset, version)))  # what lookups read, as a switch writes it
    # And its history: version N went live N - 1 minutes after 2026-11-21T00:00:00Z
    tables.table.put(event_item(dataset, PUBLISHED_AT + (version - 1) * 60, version))
    return written


def event(name: str, **changes: Any) -> dict[str, Any]:
    """A sample event from ``events/``, with top-level keys replaced by ``changes``."""
    loaded: dict[str, Any] = json.loads((EVENTS / f"{name}.json").read_text())
    loaded.update(changes)
    return loaded


class LambdaContext:
    """The attributes of a Lambda context object that Powertools reads."""

    function_name = "fencepost-test"
    function_version = "$LATEST"
    memory_limit_in_mb = 256
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:fencepost-test"
    aws_request_id = "6f1c2f3e-0000-4000-8000-000000000000"

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 30_000


def metric_totals(output: str) -> dict[str, float]:
    """The sum of every metric in the CloudWatch embedded-metric lines of ``output`` (other lines are ignored)."""
    totals: dict[str, float] = {}
    for line in output.splitlines():
        if not line.startswith("{") or '"_aws"' not in line:
            continue
        document = json.loads(line)
        for directive in document["_aws"]["CloudWatchMetrics"]:
            for metric in directive["Metrics"]:
                name = metric["Name"]
                values = document[name] if isinstance(document[name], list) else [document[name]]
                totals[name] = totals.get(name, 0) + sum(values)
    return totals
