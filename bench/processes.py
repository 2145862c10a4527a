"""Measurements made in fresh processes (``bench.probe``): the warm handler calls, cold imports and the pipeline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import synthetic
from bench.timing import median
from local.config import ROOT
from tests.support import V4_FILE, V6_FILE

RESULTS = ROOT / "bench-results"


def probe(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile(suffix=".json") as output:
        command = [sys.executable, "-m", "bench.probe", args[0], output.name, *args[1:]]
        subprocess.run(command, check=True, cwd=ROOT, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL)
        result: dict[str, Any] = json.loads(Path(output.name).read_text())
        return result


def imports(rounds: int) -> dict[str, float]:
    """Median cold import of each module in fresh processes, rounds interleaved so that drift hits all alike."""
    imports: dict[str, list[float]] = {}
    variants = [
        ("boto3 + client", "boto3", {}),
        ("lookup handler", "fencepost.handlers.lookup", {}),
        ("loader handler", "fencepost.handlers.loader", {}),
        ("lookup handler, tracing on", "fencepost.handlers.lookup", {"TRACING": "true"}),
    ]
    for _ in range(rounds):
        for name, module, env in variants:
            imports.setdefault(name, []).append(probe("import", module, env=env)["seconds"])
    return {name: median(samples) for name, samples in imports.items()}


def pipelines(synthetic_rows: int) -> dict[str, dict[str, Any]]:
    big = RESULTS / f"synthetic-{synthetic_rows}.tsv"
    if not big.exists():
        synthetic.write(big, synthetic_rows)
    return {
        f"IPv4, {V4_FILE.name}": probe("pipeline", str(V4_FILE)),
        f"IPv6, {V6_FILE.name}": probe("pipeline", str(V6_FILE)),
        f"synthetic, {synthetic_rows:,} rows": probe("pipeline", str(big)),
    }
