"""``python -m bench.exports``: a whole version as a file (section 11 of ``make bench``).

Each export is made in a fresh process from the file's flattened pieces held in memory (as the loader reads them
from the table, a page at a time), its output counted and dropped: the seconds it takes, the bytes it writes, and
how far the process's peak memory rose while it ran (beyond the pieces already held). The shared IPv4 file, and a
synthetic file of 4 million rows for CSV (the loader's limit is 5 million rows) and one of the most ranges a
MaxMind DB export may hold (``MMDB_EXPORT_MAX_RANGES``, every piece with a record of its own: the worst case).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench import synthetic
from fencepost.core.space.addresses import FAMILIES, V6
from fencepost.core.versions.exports import cidr_lines, csv_lines, encoded
from fencepost.declared import LOOKUP
from fencepost.loading.exporting import PART_BYTES
from tests.support import V4_FILE, family_ranges, read_tsv

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Exported:
    file: str
    form: str
    pieces: int
    seconds: float
    megabytes: float  # what the export writes
    rise_mb: float  # peak memory during the export, beyond the pieces held before it


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(path: Path, form: str) -> Exported:
    rows = read_tsv(path)
    families = family_ranges(rows)
    del rows
    pieces = [
        (family, start, end, families[family].values[source])
        for family in FAMILIES
        for start, end, source in families[family].pieces()
    ]
    columns = tuple(f"col{3 + n}" for n in range(len(pieces[0][3])))
    before = _peak_mb()
    started = time.perf_counter()
    if form == "mmdb":
        from fencepost.core.versions.mmdb_export import mmdb_bytes

        has_v6 = any(piece[0] == V6 for piece in pieces)
        written = len(mmdb_bytes("bench", columns, pieces, has_ipv6=has_v6, build_epoch=0))
    else:
        lines = (csv_lines if form == "csv" else cidr_lines)(columns, pieces)
        written = sum(len(part) for part in encoded(lines, PART_BYTES))
    seconds = time.perf_counter() - started
    return Exported(path.name, form, len(pieces), seconds, written / 1e6, max(0.0, _peak_mb() - before))


def measure_one(path: Path, form: str) -> Exported:
    command = [sys.executable, "-m", "bench.exports", "--child", str(path), form]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "lambdas"), str(ROOT)])}
    output = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    return Exported(**json.loads(output.strip().splitlines()[-1]))


def measure(synthetic_rows: int) -> list[Exported]:
    found = [measure_one(V4_FILE, form) for form in ("csv", "cidr", "mmdb")]
    with tempfile.TemporaryDirectory(prefix="fencepost-exports-") as folder:
        big = synthetic.write(Path(folder) / f"synthetic-{synthetic_rows}.tsv", synthetic_rows)
        found.append(measure_one(big, "csv"))
        limit = min(synthetic_rows, LOOKUP["mmdb_export_ranges"].default)  # the most ranges a MaxMind DB may hold
        found.append(measure_one(synthetic.write(Path(folder) / f"synthetic-{limit}.tsv", limit), "mmdb"))
    return found


def section(synthetic_rows: int) -> str:
    lines = [
        "### 11. Exports: a whole version as a file",
        "",
        "Each in a fresh process, from the flattened pieces held in memory, the output counted and dropped; "
        "*memory rise*: the process's peak memory during the export beyond the pieces it held before.",
        "",
        "| file | format | pieces | seconds | pieces/s | output MB | memory rise MB |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for e in measure(synthetic_rows):
        lines.append(
            f"| {e.file} | `{e.form}` | {e.pieces:,} | {e.seconds:.1f} | {e.pieces / e.seconds:,.0f} "
            f"| {e.megabytes:.1f} | {e.rise_mb:.0f} |"
        )
    lines += [
        "",
        f"CSV and CIDR exports stream in parts of {PART_BYTES >> 20} MiB: their memory does not grow with the "
        "version. A MaxMind DB is built in memory (search tree and records), and its memory grows with the pieces: "
        "the loader (3,008 MB) refuses one of more than `MMDB_EXPORT_MAX_RANGES` ranges.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.exports", description=__doc__)
    parser.add_argument("--child", nargs=2, metavar=("FILE", "FORMAT"), help=argparse.SUPPRESS)
    parser.add_argument("--export-rows", type=int, default=4_000_000, help="rows of the synthetic file (CSV)")
    args = parser.parse_args(argv)
    if args.child:
        result = child(Path(args.child[0]), args.child[1])
        print(json.dumps(result.__dict__))
        return 0
    print(section(args.export_rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
