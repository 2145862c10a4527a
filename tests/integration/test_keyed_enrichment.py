"""Keyed datasets joined into enrichment through the real service: a range folder with ``keyed_joins`` and an AS-names
folder loaded by the real loader on DynamoDB Local and the local S3 (two versions of the names), a file of rows
enriched by ``python -m enrich`` as of each row's own time and as of now, each row exactly what ``GET /lookup``
answers for its address then: the joined columns in ``data`` and ``joined``, from the keyed version live at the row's
instant, nulls and ``NO_VERSION_AT`` before the names' first version."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from enrich.__main__ import main as enrich
from fencepost.core.storage.job_keys import job_file_key, summary_key
from fencepost.core.versions.history import format_instant
from tests.support.keyed import as_name, asn_txt
from tests.support.stacks import Stack

JOIN = {"dataset": "routed-names", "on": "asn", "columns": ["name", "country"], "prefix": "as_"}
ROUTED = "start,end,asn\n1.0.0.0,1.0.255.255,AS1\n8.8.8.0,8.8.8.255,2\n9.9.9.0,9.9.9.255,350\n"
ADDRESSES = ["1.0.0.1", "1.0.200.7", "8.8.8.8", "9.9.9.9", "5.5.5.5", "2001:db8::1"]
FIELDS = "version,data,joined"


def _between(stack: Stack, key: str, body: str) -> float:
    """Load ``body`` into ``key`` and give an instant after it went live, with a second either side."""
    stack.put(key, body)
    stack.drain()
    time.sleep(1.0)
    instant = time.time()
    time.sleep(1.0)
    return instant


def _loaded(stack: Stack) -> tuple[float, float, float]:
    """The range folder, then two versions of the names (the second renames every AS and adds AS 350): an instant
    before the names, one in their first version and one in their second."""
    stack.put("routed-names/_settings.json", json.dumps({"key": "asn", "retain_days": 1}))
    stack.put("routed/_settings.json", json.dumps({"keyed_joins": [JOIN], "retain_days": 1}))
    before = _between(stack, "routed/ranges.csv", ROUTED)
    assert stack.dataset("routed")["status"] == "READY"
    first = _between(stack, "routed-names/asn.txt", asn_txt(range(1, 301)).decode())
    second = _between(stack, "routed-names/asn.txt", asn_txt(range(1, 401), tag="-b").decode())
    assert stack.dataset("routed-names")["status"] == "READY"
    return before, first, second


def test_rows_join_the_keyed_version_live_at_their_own_time_or_now_as_get_lookup(stack: Stack, tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [
        {"n": n, "ip": ip, "at": format_instant(at)} for n, (at, ip) in enumerate(_pairs(*_loaded(stack)))
    ]
    source, out, summary = tmp_path / "rows.jsonl", tmp_path / "out.jsonl", tmp_path / "summary.json"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))

    code = enrich([str(source), "--dataset", "routed", "--time", "at", "--fields", FIELDS, "--out", str(out),
                   "--summary", str(summary), "--quiet"])  # fmt: skip

    assert code == 0
    written = [json.loads(line)["routed"] for line in out.read_text().splitlines()]
    seen: set[Any] = set()
    for row, got in zip(rows, written, strict=True):
        status, body = stack.get("/lookup", ip=row["ip"], dataset="routed", as_of=row["at"], fields=FIELDS)
        assert got == _element(status, body), row
        seen.update(part["version"] for part in got.get("joined", ()))
    assert len(seen) == 3  # rows before the names (None), in their first version and in their second
    assert None in seen
    names = [got["data"]["as_name"] for got in written if "data" in got]
    assert names[:4] == [None, None, None, None]  # before the names' first version
    assert names[4:8] == [as_name(1, "")[0], as_name(1, "")[0], as_name(2, "")[0], None]  # AS 350 came later
    assert names[8:] == [as_name(1, "-b")[0], as_name(1, "-b")[0], as_name(2, "-b")[0], as_name(350, "-b")[0]]
    report = json.loads(summary.read_text())
    found = sum(1 for got in written if "joined" in got)
    assert report["versions"]["routed"] == {"1": len(rows)}
    assert sum(report["versions"]["routed-names"].values()) + report["no_version_at"]["routed-names"] == len(rows)
    assert report["no_version_at"]["routed-names"] == len(ADDRESSES)
    assert found == 3 * 4
    _now(stack, tmp_path)


def _now(stack: Stack, tmp_path: Path) -> None:
    """Rows answered now: the live names, as ``GET /lookup`` joins them."""
    source, out = tmp_path / "now.jsonl", tmp_path / "now-out.jsonl"
    source.write_text("".join(f'{{"ip": "{ip}"}}\n' for ip in ADDRESSES))
    assert enrich([str(source), "--format", "jsonl", "--dataset", "routed", "--fields", FIELDS, "--out", str(out),
                   "--quiet"]) == 0  # fmt: skip
    written = [json.loads(line)["routed"] for line in out.read_text().splitlines()]
    for ip, got in zip(ADDRESSES, written, strict=True):
        assert got == _element(*stack.get("/lookup", ip=ip, dataset="routed", fields=FIELDS)), ip
    assert written[0]["data"]["as_name"] == as_name(1, "-b")[0]
    assert written[0]["joined"][0]["version"] == stack.dataset("routed-names")["version"]


@pytest.mark.parametrize("stack", [{"ENRICH_PART_BYTES": str(4 << 10)}], indirect=True)
def test_a_job_in_the_bucket_joins_as_python_m_enrich_does(stack: Stack, tmp_path: Path) -> None:
    """An enrichment job cut into parts joins the names as one run of ``python -m enrich`` does (which answers as
    ``GET /lookup``), each part from the keyed version pinned when the job was planned."""
    _loaded(stack)
    body = "n,ip\n" + "".join(f"{n},{ADDRESSES[n % len(ADDRESSES)]}\n" for n in range(3_000))
    source, out = tmp_path / "rows.csv", tmp_path / "rows.out.csv"
    source.write_text(body)
    assert enrich([str(source), "--dataset", "routed", "--fields", FIELDS, "--out", str(out), "--quiet"]) == 0
    stack.put("_enrich/k1/in/rows.csv", body)
    stack.put(job_file_key("k1"), json.dumps({"datasets": ["routed"], "fields": FIELDS}))
    stack.drain()
    summary = stack.report(summary_key("k1"))
    assert (summary["state"], summary["rows"]) == ("done", 3_000), summary
    assert summary["parts"] >= 4
    output = summary["outputs"][0]["output"]
    written = stack.s3.get_object(Bucket=stack.bucket, Key=output)["Body"].read()
    assert written == out.read_bytes()
    header = written.decode().splitlines()[0]
    assert header == "n,ip,routed.version,routed.data.asn,routed.data.as_name,routed.data.as_country,routed.joined"
    live = stack.dataset("routed-names")["version"]
    assert summary["versions"]["routed-names"] == {str(live): 3_000}


def _pairs(*instants: float) -> list[tuple[float, str]]:
    return [(instant, address) for instant in instants for address in ADDRESSES]


def _element(status: int, body: dict[str, Any]) -> dict[str, Any]:
    """What an enriched row holds for ``GET /lookup``'s answer: without ``ip`` and ``as_of``; a miss as its error."""
    shown = {key: value for key, value in body.items() if key not in ("ip", "as_of")}
    if status == 404:
        return {key: shown[key] for key in ("version", "error") if key in shown}
    assert status == 200, body
    return shown
