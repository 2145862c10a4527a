"""``python -m bench.soak``: the shared IPv4 file loaded twice while it is looked up throughout, under injected
faults (section 13 of ``make bench``).

The local stack as ``make run`` configures its loader (two writers, chunks of 2,000 items), with
``FAULTS=dynamodb.error=0.02,s3.error=0.01,loader.kill=1`` (``local.faults``): 2% of DynamoDB requests answered 500
or 503, 1% of S3 requests 503 or 500, and one data-lane worker process killed with SIGKILL in the middle of a chunk.
The file is uploaded, then a changed copy (one row in 100 answers another country) over it; from the first upload
to a few seconds after the second version is live, threads look up addresses over HTTP (the range cache off, so
that every lookup makes its Query through the faults). Each answer is judged against a brute-force reference of
the rows of the version it names (``tests.judged_lookups``); after each load, the table is compared with the file,
item by item. The lookups keep a steady rate (``RATE`` a second, all threads together; ``--rate 0``: each thread as
fast as it can, which on a small machine takes the cores the loads and the stack need). ``--rows`` loads the first
rows only, for a quick run.
"""

from __future__ import annotations

import argparse
import gzip
import random
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import requests

from bench.options import at_least
from bench.timing import percentile
from local.config import StackConfig
from local.stack import LocalStack
from tests.faults import expected_items, stored_items
from tests.judged_lookups import (
    NOT_LIVE,
    UNAVAILABLE,
    UNDOCUMENTED,
    WRONG,
    Expected,
    Judged,
    expected_answers,
    look_up,
    sample_addresses,
    wait_for_new_load,
)
from tests.support import V4_FILE, read_tsv

FAULTS = "dynamodb.error=0.02,s3.error=0.01,loader.kill=1"
# A soak makes about 20 S3 requests (the loads' reads and reports): at 1%, most seeds inject no S3 error at all.
# With this one, the second S3 request is answered with an error (the seeds' decisions: ``local.faults.dice``).
SEED = 160
DATASET = "soak"
KEY = f"{DATASET}/ip2country-v4.tsv.gz"
# Before the first version is live a lookup is 404 UNKNOWN_DATASET, and a container trusts that for
# NEGATIVE_CACHE_TTL_SECONDS (5) after: such answers in that window are right.
NEGATIVE_GRACE = 6.0
AFTER = 5.0  # seconds of lookups after the second version is live
RATE = 100.0  # lookups a second over HTTP, all threads together


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class LoadFigures:
    status: str
    version: int
    seconds: float  # from the upload to the load's end
    expected: int  # items the file makes
    lost: int
    extra: int
    different: int
    counted: int  # items the load says it wrote (each chunk counted once)


@dataclass
class SoakResult:
    rows: int
    spec: str
    seed: int
    loads: list[LoadFigures]
    judged: Judged
    faults: str  # what was injected, as the stack says it
    counts: dict[str, int]  # what was injected, as the stack counts it
    lookup_seconds: float
    seconds: float
    rate: float = RATE  # the lookups' pace, all threads together (0: as fast as they could)


class TwoFiles(Mapping[int, dict[int, Expected]]):
    """What each version answers: every build up to the first load's live version is of the file, every later one
    of its changed copy (a build that could not read its objects is planned again under the next number)."""

    def __init__(self, answers: list[dict[int, Expected]]) -> None:
        self.answers = answers
        self.first: int | None = None  # the first load's live version, once known

    def __getitem__(self, version: int) -> dict[int, Expected]:
        if not isinstance(version, int) or version < 1:
            raise KeyError(version)
        return self.answers[0 if self.first is None or version <= self.first else 1]

    def __iter__(self) -> Iterator[int]:
        return iter(range(1, (self.first or 0) + 2))

    def __len__(self) -> int:
        return (self.first or 0) + 1


class Lookers:
    """Threads looking addresses up over HTTP until stopped, each answer judged."""

    def __init__(self, api: str, addresses: list[int], expected: TwoFiles, rate: float = RATE) -> None:
        self.api, self.addresses, self.expected, self.rate = api, addresses, expected, rate
        self.judged = Judged()
        self.live_at: float | None = None
        self._stop, self._lock = threading.Event(), threading.Lock()
        self._threads: list[threading.Thread] = []
        self.started = self.stopped = 0.0

    def start(self, count: int) -> Lookers:
        self.started = time.monotonic()
        for number in range(count):
            thread = threading.Thread(target=self._look, args=(number, count), daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()
        self.stopped = time.monotonic()

    def _look(self, number: int, threads: int) -> None:
        rng = random.Random(number)
        interval = threads / self.rate if self.rate > 0 else 0.0  # this thread's share of the rate
        due = time.monotonic()
        with requests.Session() as session:
            while not self._stop.wait(max(0.0, due - time.monotonic())):
                due = max(due, time.monotonic()) + interval  # a late lookup is not made up for by a burst
                # 404 UNKNOWN_DATASET is right until the first version is live, and for as long after as a
                # container trusts an unknown name (NEGATIVE_CACHE_TTL_SECONDS)
                unknown_ok = self.live_at is None or time.monotonic() < self.live_at + NEGATIVE_GRACE
                address = rng.choice(self.addresses)
                judged = look_up(session, self.api, DATASET, address, self.expected, unknown_ok=unknown_ok)
                if judged.verdicts[NOT_LIVE]:
                    judged.seconds = []  # the latency figures are of answers from a version
                with self._lock:
                    self.judged.add(judged)


def _load(stack: LocalStack, body: bytes) -> tuple[dict[str, Any], float]:
    """Upload ``body`` (past the faults: the bench's own work) and wait for its load to end: its record, seconds."""
    before = stack.dataset(DATASET)
    started = time.monotonic()
    stack.direct_client("s3").put_object(Bucket=stack.config.bucket, Key=KEY, Body=body)
    record = wait_for_new_load(stack, DATASET, before, timeout=7200)
    seconds = time.monotonic() - started
    say(f"  {record['status']} version {record['version']} in {seconds:.0f} s")
    return record, seconds


def _compare(stack: LocalStack, loaded: tuple[dict[str, Any], float], rows: list[list[str]]) -> LoadFigures:
    """The table compared with the file, item by item (a Scan in 4 segments at once)."""
    record, seconds = loaded
    version = record["version"]
    say(f"  comparing version {version} with the file...")
    expected = expected_items(rows, DATASET, version)
    stored = stored_items(stack.direct_client("dynamodb"), stack.config.table, DATASET, version, segments=4)
    different = sum(1 for key in expected.keys() & stored.keys() if expected[key] != stored[key])
    return LoadFigures(
        record["status"],
        version,
        seconds,
        len(expected),
        lost=len(expected.keys() - stored.keys()),
        extra=len(stored.keys() - expected.keys()),
        different=different,
        counted=record["load"]["items_written"],
    )


def measure(
    rows: int | None = None,
    *,
    seed: int = SEED,
    lookers: int = 2,
    addresses: int = 2000,
    faults: str = FAULTS,
    rate: float = RATE,
) -> SoakResult:
    started = time.monotonic()
    first = read_tsv(V4_FILE, rows)
    changed = [[start, end, f"X{value}" if n % 100 == 0 else value] for n, (start, end, value) in enumerate(first)]
    bodies = [V4_FILE.read_bytes() if rows is None else _gzip(first), _gzip(changed)]
    say(f"Soak: the reference answers of {addresses} addresses in both versions...")
    sample = sample_addresses(first, addresses)
    answers = [expected_answers(first, sample), expected_answers(changed, sample)]
    config = StackConfig.ephemeral(faults=faults, faults_seed=seed, data_visibility=30, sources_every=0)
    config.loader_env = {**config.loader_env, "RANGE_CACHE_BYTES": "0", "DELETE_GRACE_SECONDS": "3600"}
    with LocalStack(config) as stack:
        if stack.faults is not None:
            stack.faults.say = lambda _: None  # counted, said in the section
        versions = TwoFiles(answers)
        looking = Lookers(stack.api_url, sample, versions, rate).start(lookers)
        say(f"Soak: loading {len(first):,} rows under {faults} (FAULTS_SEED={seed}), looked up by {lookers} threads...")
        loaded = _load(stack, bodies[0])
        versions.first, looking.live_at = loaded[0]["version"], time.monotonic()
        loads = [_compare(stack, loaded, first)]  # looked up meanwhile
        say("Soak: loading the changed copy over it...")
        loaded = _load(stack, bodies[1])
        time.sleep(AFTER)
        looking.stop()
        loads.append(_compare(stack, loaded, changed))
        summary = stack.faults.summary() if stack.faults else "no faults injected"
        counts = stack.faults.counts() if stack.faults else {}
    return SoakResult(
        len(first),
        faults,
        seed,
        loads,
        looking.judged,
        summary,
        counts,
        looking.stopped - looking.started,
        time.monotonic() - started,
        rate,
    )


def _gzip(rows: list[list[str]]) -> bytes:
    return gzip.compress("".join("\t".join(row) + "\n" for row in rows).encode(), compresslevel=6)


def section(result: SoakResult) -> str:
    judged, p = result.judged, result.judged.seconds
    rate = judged.count / result.lookup_seconds if result.lookup_seconds else 0.0
    pace = f"paced at {result.rate:,.0f}/s" if result.rate > 0 else "as fast as the threads could"
    lines = [
        f"### 13. Soak: {result.rows:,} rows of the IPv4 file loaded twice, looked up throughout, under faults",
        "",
        f"`FAULTS={result.spec}`, `FAULTS_SEED={result.seed}`; the second load a changed copy (one row in 100). "
        "Each load's items compared with the file's; each answer judged against a brute-force reference of the "
        "version it names.",
        "",
        "| load | status | version | seconds | items | lost | extra | different | counted by the load |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for number, load in enumerate(result.loads, 1):
        lines.append(
            f"| {number} | {load.status} | {load.version} | {load.seconds:.0f} | {load.expected:,} | {load.lost} "
            f"| {load.extra} | {load.different} | {load.counted:,} |"
        )
    statuses = ", ".join(f"{status}: {count:,}" for status, count in sorted(judged.statuses.items()))
    lines += [
        "",
        f"- lookups: **{judged.count:,}** in {result.lookup_seconds:.0f} s ({rate:,.0f}/s, {pace}), "
        f"status codes {statuses}; "
        f"**{judged.verdicts[WRONG]} wrong** answers, **{judged.verdicts[UNDOCUMENTED]} undocumented 5xx**, "
        f"{judged.verdicts[UNAVAILABLE]:,} documented `503 UNAVAILABLE`, {judged.verdicts[NOT_LIVE]:,} "
        "`404 UNKNOWN_DATASET` before the first version was live",
        f"- lookup latency over HTTP: p50 **{percentile(p, 0.5) * 1e3:.1f} ms**, p99 "
        f"**{percentile(p, 0.99) * 1e3:.1f} ms** (the {len(p):,} answers from a version, the 503s included)",
        f"- {result.faults}",
        f"- the whole soak: {result.seconds:.0f} s",
    ]
    lines += [f"- wrong: {wrong}" for wrong in judged.wrong[:5]]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--soak-rows", type=at_least(0, int), help="IPv4 rows the soak loads (all; 0: no soak)")
    parser.add_argument("--soak-seed", type=int, default=SEED, help="FAULTS_SEED of the soak")


def run(args: Any) -> str | None:
    """The section, or None when ``--soak-rows 0`` leaves it out."""
    if args.soak_rows == 0:
        return None
    return section(measure(args.soak_rows, seed=args.soak_seed))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__)
    parser.add_argument("--rows", type=at_least(1, int), help="rows of the IPv4 file (all of them unless given)")
    parser.add_argument("--seed", type=int, default=SEED, help="FAULTS_SEED")
    parser.add_argument("--lookers", type=at_least(1, int), default=2, help="threads looking up")
    parser.add_argument("--faults", default=FAULTS, help="the FAULTS spec (none: the same soak without faults)")
    parser.add_argument("--rate", type=at_least(0), default=RATE, help="lookups a second, all threads (0: no limit)")
    args = parser.parse_args(argv)
    print(section(measure(args.rows, seed=args.seed, lookers=args.lookers, faults=args.faults, rate=args.rate)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
