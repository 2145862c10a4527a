"""Enrichment against the service, through the real loader and lookup handlers on DynamoDB Local and the local S3:
each build keeps its table file, and a file of rows, each with its own time across three versions, a rollback and a
roll-forward, is enriched by ``python -m enrich`` with the version live at each row's time, exactly as
``GET /lookup?as_of=`` answers that row; an instant before the first version gives ``NO_VERSION_AT``, counted."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from enrich.__main__ import main as enrich
from fencepost.core.space.addresses import format_address
from fencepost.core.storage.objects import table_key
from fencepost.core.versions.history import format_instant
from tests.support.history import history
from tests.support.stacks import Stack

FIELDS = "dataset,version,range,data"


def test_each_row_is_answered_by_the_version_live_at_its_own_time(stack: Stack, tmp_path: Path) -> None:
    versions, switches = history(stack)
    for number in versions:  # every build kept its table file
        stack.s3.head_object(Bucket=stack.bucket, Key=table_key("hist", number))
    rng = random.Random(39)
    first, now = switches[0][1], time.time()
    instants = [after + 0.001 for _, _, after in switches] + [first - 3600.0]
    instants += [rng.uniform(first, now) for _ in range(400 - len(instants))]
    spans = [(version.low, version.high) for version in versions.values()]
    rows: list[dict[str, Any]] = []
    for index, instant in enumerate(instants * 5):
        low, high = spans[index % len(spans)]
        address = format_address(4, rng.randint(low, high))
        rows.append({"n": index, "ip": address, "at": format_instant(instant) if index % 2 else round(instant, 6)})
    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out, summary = tmp_path / "out.jsonl", tmp_path / "summary.json"

    code = enrich([str(source), "--dataset", "hist", "--time", "at", "--fields", FIELDS, "--out", str(out),
                   "--summary", str(summary), "--quiet"])  # fmt: skip

    assert code == 0
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["n"] for line in written] == list(range(len(rows)))  # every row, in order, its fields kept
    counted: dict[str, int] = {}
    for row, line in zip(rows, written, strict=True):
        status, body = stack.get("/lookup", ip=row["ip"], dataset="hist", as_of=_instant(row["at"]), fields=FIELDS)
        expected = {key: value for key, value in body.items() if key not in ("ip", "as_of")}
        if status == 404 and body["error"]["code"] == "NO_VERSION_AT":
            expected = {"dataset": "hist", "error": body["error"]}
        assert line["hist"] == expected, row
        key = str(line["hist"].get("version", line["hist"].get("error", {}).get("code")))
        counted[key] = counted.get(key, 0) + 1
    report = json.loads(summary.read_text())
    assert report["versions"] == {"hist": {k: v for k, v in sorted(counted.items()) if k.isdigit()}}
    assert report["no_version_at"] == {"hist": counted["NO_VERSION_AT"]}
    assert counted["NO_VERSION_AT"] >= 5  # an hour before the first version, and whatever fell before it went live
    assert {"1", "2", "3"} <= set(counted)


def _instant(value: Any) -> str:
    return value if isinstance(value, str) else format_instant(float(value))
