"""Each fault of ``FAULTS`` alone, on the local stack as tests and ``make bench`` start it (``local.stack``): a load
under it goes READY with exactly the file's items (the table compared with the file, attribute by attribute), and
lookups under it answer right or with the documented ``503 UNAVAILABLE``, never a wrong answer nor another 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import pytest
import requests

from local.config import StackConfig
from local.faults.s3 import S3Faults
from local.stack import LocalStack
from tests.faults import expected_items, stored_items
from tests.judged_lookups import Judged, expected_answers, look_up, sample_addresses, wait_for_new_load
from tests.support import V4_FILE, read_tsv

ROWS = read_tsv(V4_FILE, 4000)
DATASET = "geo"
LOADER = {
    "SETTLE_SECONDS": "0",
    "CHUNK_ITEMS": "500",
    "WRITE_THREADS": "4",
    "RETRY_BASE_SECONDS": "0.2",
    "DEADLINE_MARGIN_SECONDS": "2",
    "DELETE_GRACE_SECONDS": "60",
    "RANGE_CACHE_BYTES": "0",  # every lookup a Query: the faults meet the lookups too
}


def _stack(faults: str, seed: int = 37) -> Iterator[LocalStack]:
    config = StackConfig.ephemeral(
        faults=faults, faults_seed=seed, data_visibility=5, sources_every=0, loader_env=LOADER
    )
    with LocalStack(config) as stack:
        stack.faults.say = lambda _: None  # type: ignore[union-attr]
        yield stack


@pytest.fixture
def stack(request: pytest.FixtureRequest) -> Iterator[LocalStack]:
    yield from _stack(*request.param) if isinstance(request.param, tuple) else _stack(request.param)


def _tsv(rows: list[list[str]]) -> bytes:
    return "".join("\t".join(row) + "\n" for row in rows).encode()


def _load(stack: LocalStack, rows: list[list[str]]) -> dict[str, Any]:
    """Upload the rows (past the faults: the test's own work) and wait for their load to end, READY or FAILED.
    (A build that could not read its objects is planned again under a new number: the version need not be 1.)"""
    before = stack.dataset(DATASET)
    stack.direct_client("s3").put_object(Bucket=stack.config.bucket, Key=f"{DATASET}/data.tsv", Body=_tsv(rows))
    return wait_for_new_load(stack, DATASET, before, timeout=300)


def _assert_exact(stack: LocalStack, rows: list[list[str]], record: dict[str, Any]) -> None:
    """The live version holds exactly the file's items, none lost, none extra, none different, counted once."""
    version = record["version"]
    stored = stored_items(stack.direct_client("dynamodb"), stack.config.table, DATASET, version)
    expected = expected_items(rows, DATASET, version)
    assert stored.keys() - expected.keys() == set()
    assert expected.keys() - stored.keys() == set()
    assert [key for key in expected if stored[key] != expected[key]] == []
    assert record["load"]["items_written"] == len(expected)


def _lookups(stack: LocalStack, rows: list[list[str]], version: int, count: int = 300) -> Judged:
    addresses = sample_addresses(rows, count)
    expected = {version: expected_answers(rows, addresses)}
    judged = Judged()
    with requests.Session() as session:
        for address in addresses:
            judged.add(look_up(session, stack.api_url, DATASET, address, expected))
    assert judged.wrong == []
    assert set(judged.verdicts) <= {"right", "unavailable"}
    assert set(judged.statuses) <= {200, 404, 503}
    return judged


def _counts(stack: LocalStack) -> dict[str, int]:
    assert stack.faults is not None
    return stack.faults.counts()


@pytest.mark.parametrize("stack", ["dynamodb.error=0.2"], indirect=True)
def test_under_dynamodb_errors_a_load_is_ready_with_every_item_and_lookups_are_right_or_503(stack: LocalStack) -> None:
    record = _load(stack, ROWS)
    assert record["status"] == "READY"
    _assert_exact(stack, ROWS, record)
    judged = _lookups(stack, ROWS, record["version"], 600)  # 2 tries of 0.2: about 4% are 503, whatever the order
    assert judged.statuses[503] > 0  # both of the lookup's tries failed, now and then: the documented answer
    assert judged.verdicts["right"] > 400
    counts = _counts(stack)
    assert counts["dynamodb.error.500"] > 20
    assert counts["dynamodb.error.503"] > 20


@pytest.mark.parametrize("stack", ["dynamodb.reset=0.1"], indirect=True)
def test_under_connections_reset_mid_answer_a_load_is_ready_with_every_item_and_lookups_are_right_or_503(
    stack: LocalStack,
) -> None:
    record = _load(stack, ROWS)
    assert record["status"] == "READY"
    _assert_exact(stack, ROWS, record)
    _lookups(stack, ROWS, record["version"])
    assert _counts(stack)["dynamodb.reset"] > 20  # writes made whose answers were lost, retried


@pytest.mark.parametrize("stack", ["dynamodb.slow=0.2@300ms"], indirect=True)
def test_under_latency_spikes_a_load_is_ready_with_every_item_and_lookups_are_right(stack: LocalStack) -> None:
    record = _load(stack, ROWS)
    _assert_exact(stack, ROWS, record)
    judged = _lookups(stack, ROWS, record["version"], 150)
    assert judged.statuses[503] == 0  # 300 ms is far inside the lookup's read timeout
    assert max(judged.seconds) >= 0.3
    assert sorted(judged.seconds)[len(judged.seconds) // 2] < 0.3  # most lookups met no spike
    assert _counts(stack)["dynamodb.slow"] > 20


@pytest.mark.parametrize("stack", ["s3.error=0.3"], indirect=True)
def test_under_s3_slowdown_and_500_a_load_is_ready_with_every_item(stack: LocalStack) -> None:
    record = _load(stack, ROWS)
    assert record["status"] == "READY"
    _assert_exact(stack, ROWS, record)
    counts = _counts(stack)
    assert counts["s3.error.503"] > 0
    assert counts["s3.error.500"] > 0


@pytest.mark.parametrize("stack", [("s3.cut=0.5", 3)], indirect=True)  # a seed that cuts the file's reads
def test_a_body_cut_short_during_a_load_is_read_again_never_loaded_as_whole(stack: LocalStack) -> None:
    record = _load(stack, ROWS)
    assert stack.s3_front is not None
    cut = cast("S3Faults", stack.s3_front.hooks[0]).cut_paths
    assert cut[f"/{stack.config.bucket}/{DATASET}/data.tsv"] > 0  # the build read a body cut short, and read again
    assert record["status"] == "READY"
    _assert_exact(stack, ROWS, record)


@pytest.mark.parametrize("stack", ["s3.cut=1"], indirect=True)
def test_a_load_whose_every_read_is_cut_fails_with_its_reason_and_the_live_version_stays_whole(
    stack: LocalStack,
) -> None:
    # Given version 1 loaded while the faults are held back
    assert stack.faults is not None
    stack.faults.armed.clear()
    first = _load(stack, ROWS)
    _assert_exact(stack, ROWS, first)
    # When a new release is uploaded and every body S3 sends is cut short
    stack.faults.armed.set()
    changed = [[start, end, f"X{value}"] for start, end, value in ROWS]
    record = _load(stack, changed)
    # Then its load fails, saying why, after its retries; version 1 is still live, whole, and answers
    assert record["status"] == "FAILED"
    assert "could not be" in record["load"]["problems"][0]["reason"]
    assert record["version"] == first["version"]
    _assert_exact(stack, ROWS, first)
    stack.faults.armed.clear()
    assert _lookups(stack, ROWS, first["version"], 100).verdicts["right"] == 100


@pytest.mark.parametrize("stack", ["loader.kill=1"], indirect=True)
def test_a_loader_worker_killed_mid_chunk_leaves_the_load_ready_with_every_item_once(stack: LocalStack) -> None:
    record = _load(stack, ROWS)
    assert _counts(stack) == {"loader.kill": 1}  # a real SIGKILL, after a BatchWriteItem of a chunk
    assert record["status"] == "READY"
    # The killed invocation never ended; its chunk was delivered again, written whole and counted once
    _assert_exact(stack, ROWS, record)
