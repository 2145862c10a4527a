"""Cold import of the handlers from the built Lambda asset, with and without its bytecode.

``python -m bench.cold_start [--runs N]`` (also a section of ``make bench``). Each figure is the median of N fresh
processes of the runtime's Python version (the interpreter ``infra.packaging`` compiles with), importing one
handler module from a copy of ``build/lambda`` the way Lambda does: nothing can be written next to the code
(``PYTHONDONTWRITEBYTECODE=1``, and the copy is read-only), so without shipped bytecode every module is compiled
again in every process. The two copies are measured alternately, so that drift on a shared machine hits both alike.
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.probe import ENV
from bench.timing import median
from infra import bytecode, packaging

HANDLERS = {"lookup handler": "fencepost.handlers.lookup", "loader handler": "fencepost.handlers.loader"}
_IMPORT = "import sys, time; t = time.perf_counter(); __import__(sys.argv[1]); print(time.perf_counter() - t)"


@dataclass(frozen=True, slots=True)
class ColdImport:
    """Median seconds to import each handler, with the shipped bytecode and with the sources alone."""

    interpreter: str
    runs: int
    with_bytecode: dict[str, float]
    without_bytecode: dict[str, float]


def measure(asset: Path, runs: int) -> ColdImport:
    interpreter = bytecode.find_interpreter()
    samples: dict[tuple[str, bool], list[float]] = {}
    with _read_only_copies(asset) as copies:
        for _ in range(runs):
            for name, module in HANDLERS.items():
                for compiled, root in copies.items():
                    samples.setdefault((name, compiled), []).append(_import_seconds(interpreter, root, module))
        if any(copies[False].rglob("__pycache__")):
            raise RuntimeError("bytecode was written into the copy without bytecode: the figures are not cold")
    return ColdImport(
        interpreter=interpreter,
        runs=runs,
        with_bytecode={name: median(samples[(name, True)]) for name in HANDLERS},
        without_bytecode={name: median(samples[(name, False)]) for name in HANDLERS},
    )


def _import_seconds(interpreter: str, root: Path, module: str) -> float:
    env = {
        **ENV,
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(root),
        "PYTHONDONTWRITEBYTECODE": "1",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "LAMBDA_TASK_ROOT": str(root),
    }
    # -s: no user site-packages; -P: the working directory is not on sys.path. Only the asset is imported from.
    result = subprocess.run(
        [interpreter, "-s", "-P", "-c", _IMPORT, module],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return float(result.stdout.strip().splitlines()[-1])


@contextmanager
def _read_only_copies(asset: Path) -> Iterator[dict[bool, Path]]:
    with tempfile.TemporaryDirectory(prefix="cold-start-") as scratch:
        copies = {True: Path(scratch) / "with", False: Path(scratch) / "without"}
        shutil.copytree(asset, copies[True])
        shutil.copytree(asset, copies[False], ignore=shutil.ignore_patterns("__pycache__"))
        for root in copies.values():
            _set_writable(root, writable=False)
        try:
            yield copies
        finally:
            for root in copies.values():
                _set_writable(root, writable=True)


def _set_writable(root: Path, *, writable: bool) -> None:
    write = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
    for path in [root, *root.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod((mode | stat.S_IWUSR) if writable else (mode & ~write))


def markdown(result: ColdImport) -> str:
    lines = [
        "### Cold import from the Lambda asset, with and without its bytecode",
        "",
        f"Median of {result.runs} fresh processes each, `{result.interpreter}`, read-only copy of `build/lambda`, "
        "`PYTHONDONTWRITEBYTECODE=1` (as on Lambda, where `/var/task` cannot be written).",
        "",
        "| handler | with bytecode ms | sources only ms | saved ms |",
        "|---|---:|---:|---:|",
    ]
    for name in HANDLERS:
        shipped, sources = result.with_bytecode[name], result.without_bytecode[name]
        lines.append(f"| {name} | {shipped * 1e3:.0f} | {sources * 1e3:.0f} | {(sources - shipped) * 1e3:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cold_start", description=__doc__)
    parser.add_argument("--runs", type=int, default=9, help="fresh processes per figure")
    parser.add_argument("--asset", type=Path, default=None, help="an asset directory (default: build it)")
    args = parser.parse_args(argv)
    asset = args.asset or packaging.build()
    print(markdown(measure(asset, args.runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
