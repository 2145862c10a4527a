"""``python -m sql`` against the service (the real loader and lookup handlers on DynamoDB Local and the local S3),
found as ``make enrich`` finds it (``TABLE_NAME``, ``BUCKET_NAME``): a dataset with three versions, a rollback and a
roll-forward is attached with every kept version and its periods live, and each row is answered by ``fp_enrich`` as
``GET /lookup`` answers it now, and by ``fp_enrich_as_of`` as ``GET /lookup?as_of=`` answers it at the row's time
(NULL where that is ``NO_VERSION_AT``)."""

from __future__ import annotations

import csv
import io
import random
import time
from pathlib import Path

import pytest

from fencepost.core.space.addresses import format_address
from fencepost.core.versions.history import format_instant
from sql.__main__ import main
from tests.support.history import history
from tests.support.stacks import Stack


def _sql(tmp_path: Path, capsys: pytest.CaptureFixture[str], query: str) -> list[dict[str, str]]:
    capsys.readouterr()  # what the handlers printed before
    code = main(["--cache", str(tmp_path / "cache"), "--format", "csv", "--query", query])
    out, err = capsys.readouterr()
    assert code == 0, err
    return list(csv.DictReader(io.StringIO(out)))


def _expected(stack: Stack, ip: str, **as_of: str) -> tuple[str, str | None]:
    """(col3, version) as ``GET /lookup`` answers: col3 empty where no range holds the address, the version empty
    where no version answers (``NO_VERSION_AT``), None where the answer does not say it (``NOT_FOUND``)."""
    status, body = stack.get("/lookup", ip=ip, dataset="hist", **as_of)
    if status == 404 and body["error"]["code"] == "NO_VERSION_AT":
        return "", ""
    if status == 404:
        assert body["error"]["code"] == "NOT_FOUND", body
        return "", None if "version" not in body else str(body["version"])
    assert status == 200, body
    return body["data"]["col3"], str(body["version"])


def test_each_row_is_answered_as_the_lookup_answers_it(
    stack: Stack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    versions, switches = history(stack)
    rng = random.Random(40)
    first, now = switches[0][1], time.time()
    instants = [after + 0.001 for _, _, after in switches] + [first - 3600.0]
    instants += [rng.uniform(first, now) for _ in range(60 - len(instants))]
    spans = [(version.low, version.high) for version in versions.values()]
    rows = []
    for n, instant in enumerate(instants):
        low, high = spans[n % len(spans)]
        ip = format_address(4, rng.randint(low - 2**12, high + 2**12)) if n % 10 else format_address(6, n)
        rows.append((n, ip, format_instant(instant)))
    source = tmp_path / "rows.csv"
    source.write_text("n,ip,at\n" + "".join(f"{n},{ip},{at}\n" for n, ip, at in rows))

    history_rows = _sql(tmp_path, capsys, "SELECT version, live_from, live_until FROM hist_history ORDER BY live_from")
    assert [int(row["version"]) for row in history_rows] == [number for number, _, _ in switches]
    live = _sql(tmp_path, capsys, f"SELECT * FROM fp_enrich('{source}', 'ip', 'hist') ORDER BY n")
    as_of = _sql(tmp_path, capsys, f"SELECT * FROM fp_enrich_as_of('{source}', 'ip', 'at', 'hist') ORDER BY n")

    assert [row["ip"] for row in live] == [row["ip"] for row in as_of] == [ip for _, ip, _ in rows]
    found = set()
    for (_, ip, at), now_row, then_row in zip(rows, live, as_of, strict=True):
        assert now_row["hist_col3"] == _expected(stack, ip)[0], ip
        col3, version = _expected(stack, ip, as_of=at)
        assert then_row["hist_col3"] == col3, (ip, at)
        assert version is None or then_row["hist_version"] == version, (ip, at)
        found.add(then_row["hist_version"])
    assert {"", "1", "2", "3"} <= found  # every version answered some row, and some row was before the first
    code = main(["--cache", str(tmp_path / "cache"), "--dataset", "nope", "--query", "SELECT 1"])
    assert code == 1
    assert capsys.readouterr().err == "error: the stack has no dataset named nope\n"
