"""``python -m bench.partitions``: DynamoDB's partitions, made visible (section 9 of ``make bench``).

1. The design's study on the capacity model (virtual time): Part 1's four loads of the shared IPv4 file with the
   study's own loader and key layouts, Part 2's one-key reads, each beside the study's figure; a chart of writes
   per second over time per load (``partitions.svg``, beside the report), like the study's figures.
2. This project's loader, as deployed, on the same tables (virtual time).
3. Through the capacity emulator as a user runs it: ``python -m local --capacity MODE --capacity-scale S`` (what
   ``make run CAPACITY=... CAPACITY_SCALE=...`` runs), a slice of the shared IPv4 file put into its bucket,
   ``GET /datasets/{name}`` polled until READY; the loader before pacing (``WRITE_PACING=off``) and today's, side by
   side, on a new on-demand table and a pre-warmed one (``--capacity-modes``), against what the emulated table allows
   (its busiest partition's items at its limit), with every answer checked against the file.
4. The planner against the emulator: ``python -m planner``'s predicted time to READY for two files of
   different shapes (that IPv4 slice; an IPv6 slice) at the same scale, beside the time measured in 3.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.capacity_log import metric_totals, worst_range_throttling, writing_seconds
from bench.chart import line_chart
from capacity.modes import parse_mode
from capacity.table import TableModel
from fencepost.core.space.addresses import format_address
from local.config import StackConfig
from local.dynamodb import local_client
from local.ports import free_port
from planner.loads import plan_mode
from planner.local_build import Build, read_build
from planner.study import our_loads, study_loads, study_reads, study_rows
from tests.reference import Reference
from tests.support import V4_FILE, V6_FILE, family_ranges

ROOT = Path(__file__).resolve().parent.parent
MODES = ("on-demand-new", "provisioned=10000,then-on-demand")
_MAKE_RUN = StackConfig()  # what make run's loader runs with
MAKE_RUN_WORKERS = _MAKE_RUN.workers
MAKE_RUN_THREADS = int(_MAKE_RUN.loader_env["WRITE_THREADS"])
MAKE_RUN_CHUNK_ITEMS = int(_MAKE_RUN.loader_env["CHUNK_ITEMS"])
MAKE_RUN_SETTLE = float(_MAKE_RUN.loader_env["SETTLE_SECONDS"])


@dataclass(frozen=True)
class EmulatedLoad:
    file: str
    mode: str
    pacing: str
    rows: int
    items: int
    seconds: float  # from the put to READY, as the API reports it
    writing_seconds: float  # from the first second the table took a write of this load to the last
    writes_per_second: float  # items over the writing seconds
    allowed_per_second: float  # the emulated table's busiest partition's items at its limit
    calls: int
    throttled_calls: int
    mismatches: int
    worst_range_throttled: float = 0.0  # the largest share of write units any one key range had refused


def _slice(path: Path, rows: int) -> bytes:
    with gzip.open(path, "rb") as handle:
        return b"".join(itertools.islice(handle, rows))


def allowed(build: Build, mode: str, scale: float) -> float:
    """Items a second no loader can beat on this table: its busiest partition's items at its limit."""
    table = TableModel(parse_mode(mode), scale=scale)
    per: Counter[int] = Counter()
    for item in build.items:
        per[table.keys.index_of(table.keys.find(item.where))] += int(item.units)
    return len(build.items) / (max(per.values()) / (1000 * scale))


def emulated_load(
    path: Path,
    rows: int,
    mode: str,
    scale: float,
    *,
    pacing: bool,
    dataset: str,
    settings: dict[str, Any] | None = None,
) -> EmulatedLoad:
    """One load through ``python -m local`` with the capacity emulator, as a user runs it; ``settings``, the
    folder's ``_settings.json``, put before the data."""
    body = _slice(path, rows)
    with tempfile.TemporaryDirectory(prefix="fencepost-partitions-") as folder:
        ports = {"--http-port": free_port(), "--aws-port": free_port(), "--dynamodb-port": free_port()}
        command = [sys.executable, "-m", "local", "--data-dir", folder, "--capacity", mode]
        command += [
            "--capacity-scale",
            str(scale),
            *itertools.chain.from_iterable((k, str(v)) for k, v in ports.items()),
        ]
        env = {**os.environ, "WRITE_PACING": "on" if pacing else "off"}
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "lambdas"), str(ROOT)])
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        api = f"http://127.0.0.1:{ports['--http-port']}"
        try:
            _wait(lambda: _get(f"{api}/datasets/sample") is not None, 120)
            _wait(lambda: (_get(f"{api}/datasets/sample") or {}).get("status") == "READY", 120)
            s3 = local_client(f"http://127.0.0.1:{ports['--aws-port']}", "s3")
            if settings is not None:
                s3.put_object(Bucket="ranges", Key=f"{dataset}/_settings.json", Body=json.dumps(settings).encode())
            put_at, started = time.time(), time.perf_counter()
            s3.put_object(Bucket="ranges", Key=f"{dataset}/{path.name.removesuffix('.gz')}", Body=body)
            _wait(lambda: (_get(f"{api}/datasets/{dataset}") or {}).get("status") in ("READY", "FAILED"), 3600)
            seconds = time.perf_counter() - started
            record = _get(f"{api}/datasets/{dataset}") or {}
            mismatches = _mismatches(api, dataset, body)
        finally:
            process.terminate()
            process.wait(timeout=60)
        totals = metric_totals(Path(folder) / "metrics.log")
        writing = writing_seconds(Path(folder) / "capacity.jsonl", _MAKE_RUN.table, since=put_at)
        worst = worst_range_throttling(Path(folder) / "capacity.jsonl", _MAKE_RUN.table, since=put_at)
    build = read_build([_written(path, body)], dataset, chunk_items=MAKE_RUN_CHUNK_ITEMS)
    items = record.get("load", {}).get("items_written", 0)
    return EmulatedLoad(
        path.name,
        mode,
        "on" if pacing else "off",
        rows,
        items,
        seconds,
        writing,
        items / writing if writing else 0.0,
        allowed(build, mode, scale),
        int(totals["WriteCalls"]),
        int(totals["Throttles"]),
        mismatches if record.get("status") == "READY" else -1,
        worst,
    )


def _written(path: Path, body: bytes) -> Path:
    target = Path(tempfile.gettempdir()) / f"fencepost-partitions-{path.name.removesuffix('.gz')}"
    target.write_bytes(body)
    return target


def _get(url: str) -> dict[str, Any] | None:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            document: dict[str, Any] = json.loads(response.read())
            return document
    except Exception:
        return None


def _wait(condition: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the local service did not get there in time")
        time.sleep(0.1)  # a cheap GET: READY is seen (and timed) within a tenth of a second


def _mismatches(api: str, dataset: str, body: bytes, samples: int = 1000) -> int:
    """Addresses whose answer differs from the overlap rule applied to the file's rows (batches of 100)."""
    rows = [line.split("\t") for line in body.decode().splitlines()]
    family, ranges = next((f, r) for f, r in family_ranges(rows).items() if len(r))
    reference = Reference(ranges.starts, ranges.ends)
    rng = random.Random(11)
    addresses = [rng.randint(min(ranges.starts), max(ranges.ends)) for _ in range(samples)]
    wrong = 0
    for offset in range(0, samples, 100):
        chunk = addresses[offset : offset + 100]
        payload = json.dumps({"ips": [format_address(family, a) for a in chunk], "dataset": dataset}).encode()
        request = urllib.request.Request(f"{api}/lookup", data=payload, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            results = json.loads(response.read())["results"]
        for address, result in zip(chunk, results, strict=True):
            row = reference.answer(address)
            expected = None if row is None else list(ranges.values[row])
            got = None if "data" not in result else list(result["data"].values())
            wrong += expected != got
    return wrong


def predicted(path: Path, rows: int, mode: str, scale: float, dataset: str) -> float:
    """The planner's time to READY for the same slice, table and loader as ``emulated_load``."""
    build = read_build([_written(path, _slice(path, rows))], dataset, chunk_items=MAKE_RUN_CHUNK_ITEMS)
    plan = plan_mode(build, mode, workers=MAKE_RUN_WORKERS, threads=MAKE_RUN_THREADS, scale=scale)
    return plan.seconds + MAKE_RUN_SETTLE


def measure(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    started = time.monotonic()
    loads = study_loads(study_rows(V4_FILE))
    reads = study_reads()
    study_build = read_build([V4_FILE], "study")
    ours = our_loads(study_build)
    chart = line_chart(
        {load.name: list(load.per_second) for load in loads},
        title="The study's four loads on the capacity model: writes accepted per second",
        y_label="writes/s",
    )
    emulated = []
    rows, rows_v6, scale = args.partition_rows, args.partition_rows_v6, args.capacity_scale
    for mode in args.capacity_modes:
        for pacing in (False, True):
            emulated.append(emulated_load(V4_FILE, rows, mode, scale, pacing=pacing, dataset="slice4"))
    first = args.capacity_modes[0]
    ipv6 = emulated_load(V6_FILE, rows_v6, first, scale, pacing=True, dataset="slice6")
    plans = [
        ("IPv4", emulated[1], predicted(V4_FILE, rows, first, scale, "slice4")),
        ("IPv6", ipv6, predicted(V6_FILE, rows_v6, first, scale, "slice6")),
    ]
    data = {
        "loads": loads,
        "reads": reads,
        "ours": ours,
        "ours_items": len(study_build.items),
        "emulated": emulated,
        "ipv6": ipv6,
        "plans": plans,
    }
    return _markdown(data, args, time.monotonic() - started), {"chart": chart}


def _markdown(data: dict[str, Any], args: argparse.Namespace, seconds: float) -> str:
    from bench.partitions_report import markdown

    return markdown(data, args, seconds)


def section(args: argparse.Namespace, results: Path) -> str:
    """The section's Markdown; its chart written to ``results``."""
    text, files = measure(args)
    results.mkdir(exist_ok=True)
    (results / "partitions.svg").write_text(files["chart"])
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.partitions", description=__doc__)
    add_arguments(parser)
    print(section(parser.parse_args(argv), ROOT / "bench-results"))
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--partition-rows", type=int, default=100_000, help="rows of the IPv4 slice loaded through the emulator"
    )
    parser.add_argument(
        "--partition-rows-v6", type=int, default=30_000, help="rows of the IPv6 slice (the planner's check)"
    )
    parser.add_argument("--capacity-scale", type=float, default=0.25, help="CAPACITY_SCALE of those loads")
    parser.add_argument(
        "--capacity-modes", nargs="+", type=_mode, default=list(MODES), metavar="MODE", help="their tables"
    )


def _mode(text: str) -> str:
    """A table of ``--capacity-modes``, checked as ``make run CAPACITY=`` checks it; the first also plans."""
    try:
        unlimited = parse_mode(text).unlimited
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if unlimited:
        raise argparse.ArgumentTypeError("an emulated load needs a table with limits, not 'off'")
    return text


if __name__ == "__main__":
    raise SystemExit(main())
