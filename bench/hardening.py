"""``python -m bench.hardening``: what the gates decide on real and sparse feeds, what crafted MaxMind DB files cost.

Gates: the shared IPv4 file, then the same file with 2% of its rows given another country, and cut after 60% of
its rows; a DROP-style list (1,000 IPv4 /20s, 200 IPv6 /32s) cut to a tenth, and grown tenfold. Each pair is
compared as a build compares itself with the live version (pieces files, one streaming merge) and decided by the
default gates (``core.folders.gates``).

Crafted MaxMind DB files, read as the loader reads them with its default limits, each in a fresh process: seconds
until it fails (or is read), how, and the peak resident memory (``VmHWM``) above the process's own. ``wide``: R
networks, each with a record of 1,000 keys no other record has (R x 1,000 columns without a ``columns`` setting);
``sparse``: R networks, each with a record of one key of 900 (900 columns, R rows of 900 cells, nearly all empty).
``--baseline DIR`` reads them with another checkout's code too (its ``lambdas/``), for a before-and-after.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.mmdb import _peak_mb
from tests.mmdb_files import mmdb, wide_records

ROOT = Path(__file__).resolve().parent.parent
SIZES = {"wide": (300, 400, 600, 2000), "sparse": (20_000, 100_000)}  # networks of the crafted files
# With code whose cost grows with the square of the file, larger ones take minutes
BASELINE_SIZES = {"wide": (300, 400), "sparse": (20_000, 100_000)}


def gate_cases(rows: int | None = None) -> list[dict[str, Any]]:
    """Each case's figures and the default gates' verdict; ``rows``: of the shared IPv4 file (None: all)."""
    # Imported here: ``--read`` runs in a process that may hold another checkout's code
    from fencepost.core.folders.gates import Gates
    from fencepost.core.space.addresses import FAMILIES, V4, V6
    from fencepost.core.storage.piece_files import parse_piece_line, piece_lines
    from fencepost.core.versions.diffs import Diff, diff
    from tests.feeds import drop_list, networks
    from tests.support import V4_FILE, family_ranges, read_tsv

    def lines(rows: list[list[str]]) -> list[Any]:
        ranges = family_ranges(rows)
        pieces = {family: ranges[family].pieces() for family in FAMILIES}
        return [parse_piece_line(line) for line in piece_lines(ranges, pieces)]

    def _diff(old: list[list[str]], new: list[list[str]]) -> Diff:
        return diff(iter(lines(old)), iter(lines(new)))

    real = read_tsv(V4_FILE, rows)
    picked = set(random.Random(22).sample(range(len(real)), len(real) // 50))
    updated = [[r[0], r[1], "ZZ" if r[2] != "ZZ" else "AQ"] if k in picked else r for k, r in enumerate(real)]
    drop = drop_list()
    grown = drop + networks("100.0.0.0/8", 24, 10_800, "drop")
    cases = {
        "shared IPv4 file, 2% of rows changed": (real, updated),
        "shared IPv4 file, cut after 60% of its rows": (real, real[: len(real) * 6 // 10]),
        "DROP-style list (1,000 /20s, 200 /32s), cut to a tenth": (drop, drop[::10]),
        "DROP-style list, grown tenfold": (drop, grown),
    }
    found = []
    for name, (old, new) in cases.items():
        started = time.perf_counter()
        result = _diff(old, new)
        refused = Gates().refusal(len(new), result, baseline=1)
        v4, v6 = result.loss[V4], result.loss[V6]
        found.append(
            {
                "case": name,
                "rows": f"{len(old):,} -> {len(new):,}",
                "removed_pieces_v4": float(v4.pieces_fraction() * 100),
                "removed_pieces_v6": float(v6.pieces_fraction() * 100),
                "removed_addresses_v4": float(v4.addresses_fraction() * 100),
                "changed_space_v4": result.percent_v4,
                "changed_space_v6": result.percent_v6,
                "verdict": "goes live" if refused is None else f"refused ({refused.gate})",
                "seconds": time.perf_counter() - started,
            }
        )
    return found


def read_crafted(path: Path) -> dict[str, Any]:
    """Read one crafted file as the loader does, in this process (run it in a fresh one)."""
    from fencepost.core.folders.limits import Limits
    from fencepost.core.formats import mmdb
    from fencepost.core.formats.base import FileError, ReadOptions
    from fencepost.core.versions.build import Collector, ProblemLog

    data = path.read_bytes()
    before = _peak_mb()
    started = time.perf_counter()
    arguments: dict[str, Any] = {}
    if "room" in inspect.signature(mmdb.read_mmdb).parameters:
        limits = Limits()
        arguments = {"limits": limits, "room": mmdb.Room(limits.max_build_rows, limits.max_build_bytes - len(data))}
    else:  # a checkout from before the bounds: its own arguments
        arguments = {"max_ranges": Limits().max_build_rows, "too_many": "too many rows"}
    try:
        summary = mmdb.read_mmdb(path.name, data, ReadOptions(), Collector(), ProblemLog(), **arguments)
        outcome = f"read: {summary.rows} networks, {len(summary.columns):,} columns"
    except FileError as error:
        outcome = f"FAILED: {error.reason[:90]}"
    return {"seconds": time.perf_counter() - started, "peak_mb": _peak_mb() - before, "outcome": outcome}


def _crafted(kind: str, size: int) -> bytes:
    if kind == "wide":
        return wide_records(size, 1000)
    return mmdb(
        [(f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}/32", {f"key{n % 900}": f"v{n}"}) for n in range(size)],
        ip_version=4,
    )


def crafted_cases(code: Path, sizes: Mapping[str, tuple[int, ...]]) -> list[dict[str, Any]]:
    found = []
    with tempfile.TemporaryDirectory() as folder:
        for kind, size in ((kind, size) for kind, counts in sizes.items() for size in counts):
            path = Path(folder) / f"{kind}-{size}.mmdb"
            path.write_bytes(_crafted(kind, size))
            command = [sys.executable, "-m", "bench.hardening", "--read", str(path)]
            paths = [str(code / "lambdas"), str(ROOT), os.environ.get("PYTHONPATH", "")]
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
            done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT, env=env)
            found.append(
                {"kind": kind, "networks": size, "file_mb": path.stat().st_size / 1e6, **json.loads(done.stdout)}
            )
    return found


def markdown(gates: list[dict[str, Any]], crafted: dict[str, list[dict[str, Any]]]) -> str:
    lines = [
        "### 4b. Gates on real and sparse feeds, and crafted MaxMind DB files",
        "",
        "Default gates (`max_removed_percent` 25, `removed_allowance` 50, `min_ranges` 1, no `max_change_percent`). "
        "Removed: share of the live version's pieces (or addresses) gone or answering otherwise; changed: share of "
        "the whole address space.",
        "",
        "| case | rows | removed pieces IPv4 / IPv6 % | removed addresses IPv4 % | changed space IPv4 / IPv6 % "
        "| verdict | s |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for case in gates:
        lines.append(
            f"| {case['case']} | {case['rows']} | {case['removed_pieces_v4']:.3g} / {case['removed_pieces_v6']:.3g} "
            f"| {case['removed_addresses_v4']:.3g} | {case['changed_space_v4']:.3g} / {case['changed_space_v6']:.3g} "
            f"| {case['verdict']} | {case['seconds']:.1f} |"
        )
    lines += [
        "",
        "Crafted MaxMind DB files, read with the default limits in a fresh process each (wide: each network's "
        "record has 1,000 keys of its own; sparse: each has one key of 900):",
        "",
        "| code | file | networks | file MB | seconds | peak MB above start | outcome |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for code, cases in crafted.items():
        for case in cases:
            lines.append(
                f"| {code} | {case['kind']} | {case['networks']:,} | {case['file_mb']:.1f} | {case['seconds']:.2f} "
                f"| {case['peak_mb']:.0f} | {case['outcome']} |"
            )
    return "\n".join(lines)


def measure(baseline: Path | None = None, *, gate_rows: int | None = None, scale: float = 1.0) -> str:
    """The section; ``scale`` multiplies the crafted files' networks (a quick run: 0.1)."""

    def scaled(sizes: Mapping[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
        return {kind: tuple(max(1, round(size * scale)) for size in counts) for kind, counts in sizes.items()}

    crafted = {"this checkout": crafted_cases(ROOT, scaled(SIZES))}
    if baseline is not None:
        crafted[f"baseline ({baseline})"] = crafted_cases(baseline, scaled(BASELINE_SIZES))
    return markdown(gate_cases(gate_rows), crafted)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.hardening", description=__doc__)
    parser.add_argument("--baseline", type=Path, help="another checkout whose code reads the crafted files too")
    parser.add_argument("--gate-rows", type=int, help="rows of the shared IPv4 file for the gates (default: all)")
    parser.add_argument("--crafted-scale", type=float, default=1.0, help="multiplies the crafted files' networks")

    parser.add_argument("--read", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.read:
        print(json.dumps(read_crafted(args.read)))
        return 0
    print(measure(args.baseline, gate_rows=args.gate_rows, scale=args.crafted_scale))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
