"""Section 1b: loading through the configuration ``make run`` uses, and how long its restart takes.

``make run`` runs the loader with ``StackConfig``'s defaults (two writers, chunks of 2,000 items, 2 s to settle) and
mirrors the bucket to its data dir. Its table is in memory by default (at restart, every dataset is built again
from the mirrored objects) or, with ``--table disk``, kept on disk and worked on as a copy in memory
(``local.storage``). Section 1's loader runs on DynamoDB Local in memory with the bench's own settings. The same
slice goes through all three in one run, so the ratios compare like with like on a machine whose speed varies.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench import loading
from bench.loading import LoadResult
from bench.report import mark
from local.config import DISK, MEMORY, StackConfig
from local.mirror import Mirror, reconcile
from local.ports import free_port
from local.stack import LocalStack

DATASET = "makerun"
TARGET = 0.7  # make run loads at no less than 70% of the in-memory rate


@dataclass(frozen=True)
class MakeRun:
    store: str
    load: LoadResult
    restart_seconds: float  # from starting the stack again to the loaded dataset answering READY


def measure(lines: list[bytes], warmup_rows: int, store: str) -> MakeRun:
    with tempfile.TemporaryDirectory(prefix="fencepost-bench-") as folder:
        data_dir = Path(folder)
        config = StackConfig(
            dynamodb_port=free_port(),
            aws_port=free_port(),
            http_port=None,
            data_dir=data_dir,
            store=store,
            log_level="WARNING",
        )
        with LocalStack(config) as stack:
            Mirror.attach(stack, data_dir / "s3")
            loading.project(stack, b"".join(lines[:warmup_rows]), warmup_rows, "warmup")  # warm the JIT, as in 1
            load = loading.project(stack, b"".join(lines), len(lines), DATASET)
        started = time.perf_counter()
        with LocalStack(config) as stack:
            Mirror.attach(stack, data_dir / "s3").restore()
            reconcile(stack)
            record = stack.wait_for(DATASET, timeout=3600)
            restart = time.perf_counter() - started
            if record["status"] != "READY":
                raise RuntimeError(f"after a restart, {DATASET} is {record['status']}")
    return MakeRun(store, load, restart)


def markdown(runs: list[MakeRun], in_memory: LoadResult) -> str:
    kept = {
        MEMORY: "in memory (default): rebuilt from the mirrored objects at start",
        DISK: "`--table disk`: kept on disk, worked on as a copy in /dev/shm",
    }
    lines = [
        f"### 1b. Loading {in_memory.rows:,} rows through `make run`'s configuration, and restarting it",
        "",
        "The loader as `make run` sets it (`StackConfig` defaults), the bucket mirrored to disk, the same slice as "
        "section 1 (whose loader ran in memory with the bench's settings, in this same run). A restart is timed from "
        "starting the stack again to the loaded dataset answering READY (the warm-up dataset is rebuilt too).",
        "",
        "| table | rows/s | load s | of section 1 | restart s |",
        "|---|---:|---:|---:|---:|",
    ]
    for run in runs:
        ratio = run.load.rate / in_memory.rate
        target = f" ({mark(ratio >= TARGET)})" if run.store == MEMORY else ""
        lines.append(
            f"| {kept[run.store]} | {run.load.rate:,.0f} | {run.load.seconds:.1f} | **{ratio:.0%}**{target} "
            f"| {run.restart_seconds:.1f} |"
        )
    lines += ["", f"- target: `make run` (its default) loads at least {TARGET:.0%} as fast as section 1's loader"]
    return "\n".join(lines)
