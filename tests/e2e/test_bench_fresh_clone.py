"""``make bench`` in its smallest form, in a clean tree: no ``bench-results/`` and nothing a run leaves behind.

The tree is this one's files as a clone would have them (tracked and not ignored), with a ``../shared/data`` beside
it that holds the shared files sampled (every 20th IPv4 row, every 10th IPv6 row: each file's mess, from every part
of the address space, in a twentieth of the time); the installed tools a clone gets from ``make install``
(``node_modules``: DynamoDB Local) and the Lambda asset's build cache are linked in. The report must name its
machine, date and configuration, and hold every section. ``make bench`` itself reads the whole files.
"""

from __future__ import annotations

import gzip
import itertools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support import ROOT, V4_FILE, V6_FILE

SMALLEST = [
    "--rows", "2000", "--repeat", "1", "--lookups", "50", "--invocations", "200", "--imports", "1",
    "--several-lookups", "10", "--several-handler-lookups", "20", "--synthetic", "2000", "--workload-lookups", "2000",
    "--cache-samples", "30", "--gate-rows", "20000", "--crafted-scale", "0.1", "--partition-rows", "1000",
    "--partition-rows-v6", "600", "--capacity-scale", "0.5", "--capacity-modes", "on-demand-new",
    "--export-rows", "2000", "--soak-rows", "2000", "--enrich-addresses", "20000", "--enrich-alb-lines", "5000",
    "--enrich-compare", "2000", "--enrich-memory-mb", "5", "--enrich-alb-runs", "1", "--jobs-megabytes", "1",
    "--jobs-ranges", "2000", "--tables-addresses", "20000", "--tables-naive-addresses", "200",
    "--tables-naive-seconds", "5", "--tables-spark-addresses", "2000", "--tables-synthetic-rows", "20000",
    "--joins-lookups", "50", "--keyed-asns", "2000",
]  # fmt: skip
SAMPLED = {V4_FILE.name: 20, V6_FILE.name: 10}  # one row in n
SECTIONS = ["1", "1b", "2", "3", "4", "4b", "5", "5b", "6", "7", "8", "9", "10", "11", "12", "13", "14", "14b", "15"]


def _clean_tree(target: Path) -> Path:
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (f.decode() for f in files)):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    (ROOT / "build").mkdir(exist_ok=True)
    for installed in ("node_modules", "build"):
        (target / installed).symlink_to(ROOT / installed)
    _sampled(ROOT.parent / "shared" / "data", target.parent / "shared" / "data")  # beside the clone, as in CI
    return target


def _sampled(source: Path, target: Path) -> None:
    """The shared data files, each keeping one row in ``SAMPLED[name]`` (in file order), under the same names."""
    target.mkdir(parents=True)
    for path in source.iterdir():
        if path.name not in SAMPLED:
            shutil.copy2(path, target / path.name)
            continue
        with gzip.open(path, "rb") as whole:
            kept = list(itertools.islice(whole, 0, None, SAMPLED[path.name]))
        (target / path.name).write_bytes(gzip.compress(b"".join(kept), mtime=0))


def test_the_smallest_bench_runs_in_a_fresh_clone_and_says_what_it_measured(tmp_path: Path) -> None:
    tree = _clean_tree(tmp_path / "clone")
    assert not (tree / "bench-results").exists()
    env = {**os.environ, "PYTHONPATH": f"{tree / 'lambdas'}{os.pathsep}{tree}"}
    if jvm := os.environ.get("TEST_JVM_OPTIONS"):  # make test's, for Spark's driver too (section 14's join)
        env["PYSPARK_SUBMIT_ARGS"] = f"--driver-java-options '{jvm}' pyspark-shell"

    run = subprocess.run(
        [sys.executable, "-m", "bench", *SMALLEST],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )

    assert run.returncode == 0, run.stderr[-3000:]
    report = (tree / "bench-results" / "latest.md").read_text()
    assert re.search(r"^## Benchmarks \(\d{4}-\d\d-\d\d \d\d:\d\d UTC; \d+ cores, \S+, Python [\d.]+;", report, re.M)
    assert "Configuration:" in report
    assert "`python -m bench --cache-samples 30 --capacity-modes on-demand-new --capacity-scale 0.5 " in report
    assert "| `on-demand-new` | off | 1,000 |" in report  # the emulated loads: on the one table asked for
    assert "| `provisioned=10000,then-on-demand` |" not in report
    assert "DynamoDB Local dynamodb_local_" in report
    assert re.findall(r"^### (\d+b?)\. ", report, re.M) == SECTIONS
    assert "### Cold import from the Lambda asset" in report
    assert (tree / "bench-results" / "partitions.svg").read_text().startswith("<svg")
    assert "Traceback" not in run.stderr
