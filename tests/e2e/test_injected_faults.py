"""Each fault of ``FAULTS`` alone, on the local stack as tests and ``make bench`` start it (``local.stack``): a load
under it goes READY with exactly the file's items (the table compared with the file, attribute by attribute), and
lookups under it answer right or with the documented ``503 UNAVAILABLE``, never a wrong answer nor another 5xx.

The DynamoDB and S3 faults share one stack started with both fronts: each test sets its own faults and seed
(``Faults.change``, counted from zero) and loads a dataset of its own. The tests whose faults answer errors run
last: after the DynamoDB errors' test, the next load on the same stack (the same functions and clients) took 29 s
instead of 10 s. A loader kill needs a stack of its own (its data-lane workers are processes only when the stack
starts with it)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import pytest
import requests

from local.config import StackConfig
from local.faults import parse_faults
from local.faults.s3 import S3Faults
from local.stack import LocalStack
from tests.faults import expected_items, stored_items
from tests.judged_lookups import Judged, expected_answers, look_up, sample_addresses, wait_for_new_load
from tests.support import V4_FILE, read_tsv

ROWS = read_tsv(V4_FILE, 4000)
SEED = 37
_NUMBERS = itertools.count(1)
LOADER = {
    "SETTLE_SECONDS": "0",
    "CHUNK_ITEMS": "500",
    "WRITE_THREADS": "4",
    "RETRY_BASE_SECONDS": "0.2",
    "DEADLINE_MARGIN_SECONDS": "2",
    "DELETE_GRACE_SECONDS": "60",
    "RANGE_CACHE_BYTES": "0",  # every lookup a Query: the faults meet the lookups too
}


def _stack(faults: str) -> Iterator[LocalStack]:
    config = StackConfig.ephemeral(
        faults=faults, faults_seed=SEED, data_visibility=5, sources_every=0, loader_env=LOADER
    )
    with LocalStack(config) as stack:
        stack.faults.say = lambda _: None  # type: ignore[union-attr]
        yield stack


@dataclass(frozen=True)
class Faulted:
    """A stack under one test's faults, and the dataset that test loads."""

    stack: LocalStack
    dataset: str


@pytest.fixture(scope="module")
def both_fronts() -> Iterator[LocalStack]:
    yield from _stack("dynamodb.error=0.2,s3.error=0.3")


@pytest.fixture
def faulted(request: pytest.FixtureRequest, both_fronts: LocalStack) -> Faulted:
    """``request.param``: the test's ``FAULTS`` (and its seed: ``SEED`` unless given)."""
    spec, seed = request.param if isinstance(request.param, tuple) else (request.param, SEED)
    assert both_fronts.faults is not None
    both_fronts.faults.change(parse_faults(spec), seed)
    both_fronts.faults.armed.set()
    return Faulted(both_fronts, f"geo{next(_NUMBERS)}")


@pytest.fixture
def killing() -> Iterator[Faulted]:
    for stack in _stack("loader.kill=1"):
        yield Faulted(stack, "geo")


def _tsv(rows: list[list[str]]) -> bytes:
    return "".join("\t".join(row) + "\n" for row in rows).encode()


def _load(case: Faulted, rows: list[list[str]]) -> dict[str, Any]:
    """Upload the rows (past the faults: the test's own work) and wait for their load to end, READY or FAILED.
    (A build that could not read its objects is planned again under a new number: the version need not be 1.)"""
    stack, dataset = case.stack, case.dataset
    before = stack.dataset(dataset)
    stack.direct_client("s3").put_object(Bucket=stack.config.bucket, Key=f"{dataset}/data.tsv", Body=_tsv(rows))
    return wait_for_new_load(stack, dataset, before, timeout=300)


def _assert_exact(case: Faulted, rows: list[list[str]], record: dict[str, Any]) -> None:
    """The live version holds exactly the file's items, none lost, none extra, none different, counted once."""
    version, stack = record["version"], case.stack
    stored = stored_items(stack.direct_client("dynamodb"), stack.config.table, case.dataset, version)
    expected = expected_items(rows, case.dataset, version)
    assert stored.keys() - expected.keys() == set()
    assert expected.keys() - stored.keys() == set()
    assert [key for key in expected if stored[key] != expected[key]] == []
    assert record["load"]["items_written"] == len(expected)


def _lookups(case: Faulted, rows: list[list[str]], version: int, count: int = 300) -> Judged:
    addresses = sample_addresses(rows, count)
    expected = {version: expected_answers(rows, addresses)}
    judged = Judged()
    with requests.Session() as session:
        for address in addresses:
            judged.add(look_up(session, case.stack.api_url, case.dataset, address, expected))
    assert judged.wrong == []
    assert set(judged.verdicts) <= {"right", "unavailable"}
    assert set(judged.statuses) <= {200, 404, 503}
    return judged


def _counts(case: Faulted) -> dict[str, int]:
    assert case.stack.faults is not None
    return case.stack.faults.counts()


@pytest.mark.parametrize("faulted", ["dynamodb.reset=0.1"], indirect=True)
def test_under_connections_reset_mid_answer_a_load_is_ready_with_every_item_and_lookups_are_right_or_503(
    faulted: Faulted,
) -> None:
    record = _load(faulted, ROWS)
    assert record["status"] == "READY"
    _assert_exact(faulted, ROWS, record)
    _lookups(faulted, ROWS, record["version"])
    assert _counts(faulted)["dynamodb.reset"] > 20  # writes made whose answers were lost, retried


@pytest.mark.parametrize("faulted", ["dynamodb.slow=0.2@300ms"], indirect=True)
def test_under_latency_spikes_a_load_is_ready_with_every_item_and_lookups_are_right(faulted: Faulted) -> None:
    record = _load(faulted, ROWS)
    _assert_exact(faulted, ROWS, record)
    judged = _lookups(faulted, ROWS, record["version"], 150)
    assert judged.statuses[503] == 0  # 300 ms is far inside the lookup's read timeout
    assert max(judged.seconds) >= 0.3
    assert sorted(judged.seconds)[len(judged.seconds) // 2] < 0.3  # most lookups met no spike
    assert _counts(faulted)["dynamodb.slow"] > 20


def test_a_body_cut_short_during_a_load_is_read_again_never_loaded_as_whole(both_fronts: LocalStack) -> None:
    # Half of S3's GETs cut short: a load whose file's read was not cut is loaded again (a dataset of its own, the
    # next seed) until one was, each READY with exactly the file's items
    assert both_fronts.faults is not None
    assert both_fronts.s3_front is not None
    cut = cast("S3Faults", both_fronts.s3_front.hooks[0]).cut_paths
    for seed in range(1, 13):  # each load's read is cut one time in two: all twelve missed, once in 4,096 runs
        both_fronts.faults.change(parse_faults("s3.cut=0.5"), seed)
        case = Faulted(both_fronts, f"geo{next(_NUMBERS)}")
        record = _load(case, ROWS)
        assert record["status"] == "READY"
        _assert_exact(case, ROWS, record)
        if cut[f"/{both_fronts.config.bucket}/{case.dataset}/data.tsv"] > 0:  # cut short, and read again
            break
    else:
        raise AssertionError("no load's read of its file was cut short")


@pytest.mark.parametrize("faulted", ["s3.cut=1"], indirect=True)
def test_a_load_whose_every_read_is_cut_fails_with_its_reason_and_the_live_version_stays_whole(
    faulted: Faulted,
) -> None:
    # Given version 1 loaded while the faults are held back
    faults = faulted.stack.faults
    assert faults is not None
    faults.armed.clear()
    first = _load(faulted, ROWS)
    _assert_exact(faulted, ROWS, first)
    # When a new release is uploaded and every body S3 sends is cut short
    faults.armed.set()
    changed = [[start, end, f"X{value}"] for start, end, value in ROWS]
    record = _load(faulted, changed)
    # Then its load fails, saying why, after its retries; version 1 is still live, whole, and answers
    assert record["status"] == "FAILED"
    assert "could not be" in record["load"]["problems"][0]["reason"]
    assert record["version"] == first["version"]
    _assert_exact(faulted, ROWS, first)
    faults.armed.clear()
    assert _lookups(faulted, ROWS, first["version"], 100).verdicts["right"] == 100


@pytest.mark.parametrize("faulted", ["s3.error=0.3"], indirect=True)
def test_under_s3_slowdown_and_500_a_load_is_ready_with_every_item(faulted: Faulted) -> None:
    record = _load(faulted, ROWS)
    assert record["status"] == "READY"
    _assert_exact(faulted, ROWS, record)
    counts = _counts(faulted)
    assert counts["s3.error.503"] > 0
    assert counts["s3.error.500"] > 0


@pytest.mark.parametrize("faulted", ["dynamodb.error=0.2"], indirect=True)
def test_under_dynamodb_errors_a_load_is_ready_with_every_item_and_lookups_are_right_or_503(faulted: Faulted) -> None:
    record = _load(faulted, ROWS)
    assert record["status"] == "READY"
    _assert_exact(faulted, ROWS, record)
    judged = _lookups(faulted, ROWS, record["version"], 600)  # 2 tries of 0.2: about 4% are 503, whatever the order
    assert judged.statuses[503] > 0  # both of the lookup's tries failed, now and then: the documented answer
    assert judged.verdicts["right"] > 400
    counts = _counts(faulted)
    assert counts["dynamodb.error.500"] > 20
    assert counts["dynamodb.error.503"] > 20


def test_a_loader_worker_killed_mid_chunk_leaves_the_load_ready_with_every_item_once(killing: Faulted) -> None:
    record = _load(killing, ROWS)
    assert _counts(killing) == {"loader.kill": 1}  # a real SIGKILL, after a BatchWriteItem of a chunk
    assert record["status"] == "READY"
    # The killed invocation never ended; its chunk was delivered again, written whole and counted once
    _assert_exact(killing, ROWS, record)
