"""``python -m bench.releases OLD NEW [OLD NEW ...]``: how much a publisher's releases change from one to the next,
as a build measures it (what it removes, what it adds against what the older one covers, the share of the address
space it changes, the first reserved network it answers for), and what the folder gates decide (the defaults, and
the stricter ones of a folder fed by its source, the pair alone in its window): the figures behind the unattended
gates' defaults (docs/datasets.md). Each file is read by the
service's own readers, whatever its format (a netset, DROP's JSON lines, a CSV layout...)."""

from __future__ import annotations

import argparse
import gzip
from dataclasses import dataclass
from pathlib import Path

from fencepost.core.folders.gates import Gates
from fencepost.core.formats.base import ReadOptions
from fencepost.core.formats.choice import read_ranges
from fencepost.core.space.addresses import FAMILIES, V4
from fencepost.core.space.reserved import Reserved, registry
from fencepost.core.storage.piece_files import PieceLine, parse_piece_line, piece_lines
from fencepost.core.versions.build import Collector, ProblemLog
from fencepost.core.versions.diffs import Diff, diff


@dataclass(frozen=True, slots=True)
class Pair:
    old: str
    new: str
    entries: tuple[int, int]
    removed_pieces: float  # percent, IPv4
    removed_addresses: float
    added_addresses: float | None  # percent of what the older release covers, IPv4 (None: it covers nothing)
    changed_space: float
    reserved: str  # the first reserved network the newer release answers for, or "none"
    default: str  # the default gates' verdict
    unattended: str  # the unattended gates'


def _pieces(path: Path) -> tuple[int, list[PieceLine], Reserved | None]:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    collector, problems = Collector(), ProblemLog()
    summary = read_ranges(path.name, data.splitlines(keepends=True), ReadOptions(), collector, problems)
    families = collector.families
    pieces = {family: families[family].pieces() for family in FAMILIES}
    reserved = registry().first_unreachable({family: (p.starts, p.ends) for family, p in pieces.items()})
    return summary.rows, [parse_piece_line(line) for line in piece_lines(families, pieces)], reserved


def _verdict(gates: Gates, rows: int, found: Diff, reserved: Reserved | None) -> str:
    refused = gates.refusal(rows, found, baseline=1, reserved=reserved)
    return "goes live" if refused is None else f"refused ({refused.gate})"


def compare(old: Path, new: Path) -> Pair:
    (old_rows, old_pieces, _), (new_rows, new_pieces, reserved) = _pieces(old), _pieces(new)
    found = diff(iter(old_pieces), iter(new_pieces))
    loss, growth = found.loss[V4], found.growth(V4)
    return Pair(
        old.name,
        new.name,
        (old_rows, new_rows),
        float(loss.pieces_fraction() * 100),
        float(loss.addresses_fraction() * 100),
        None if growth is None else float(growth * 100),
        found.percent_v4,
        "none" if reserved is None else reserved.network,
        _verdict(Gates(), new_rows, found, reserved),
        _verdict(Gates().unattended(), new_rows, found, reserved),
    )


def markdown(pairs: list[Pair]) -> str:
    lines = [
        "| releases | entries | removed pieces IPv4 | removed addresses IPv4 | added addresses IPv4 "
        "| changed space IPv4 | reserved | default gates | unattended gates |",
        "|---|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for p in pairs:
        added = "—" if p.added_addresses is None else f"{p.added_addresses:.3f}%"
        lines.append(
            f"| {p.old} → {p.new} | {p.entries[0]:,} → {p.entries[1]:,} | {p.removed_pieces:.2f}% "
            f"| {p.removed_addresses:.3f}% | {added} | {p.changed_space:.4f}% | {p.reserved} | {p.default} "
            f"| {p.unattended} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.releases", description=__doc__)
    parser.add_argument("files", type=Path, nargs="+", help="releases in pairs: older, newer, older, newer...")
    args = parser.parse_args(argv)
    if len(args.files) % 2:
        parser.error("give the releases in pairs: an older one, then a newer one")
    print(markdown([compare(old, new) for old, new in zip(args.files[::2], args.files[1::2], strict=True)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
