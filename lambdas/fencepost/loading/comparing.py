"""Comparing a build with the live version, before anything of it is written, and the gate that may stop it.

Every build keeps its sorted pieces (bounds and a hash of each answer) in the bucket, beside its report
(``core.folders.pieces_key``). The next build compares its own pieces with the live version's file by a streaming
merge (``core.diffs``): the live version is never read back from DynamoDB, and only this build's pieces are held
in memory. The comparison's figures are what the folder's gates (``core.gates``) decide on.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.addresses import V4, V6, format_address
from fencepost.core.build import FamilyRanges, Pieces
from fencepost.core.diffs import Change, Diff, Sweep, parse_piece_line, piece_lines
from fencepost.core.gates import Gates
from fencepost.core.objects import changes_key, pieces_key
from fencepost.loading.ports import KeptFiles, Telemetry
from fencepost.model import DiffSummary


class PieceFiles(KeptFiles, Protocol):
    def put_lines(self, key: str, lines: Iterable[str]) -> None: ...
    def lines_if_any(self, key: str) -> Iterator[bytes] | None: ...


@dataclass(frozen=True, slots=True)
class Comparison:
    summary: DiffSummary
    found: Diff | None = None  # None: there was no baseline

    def refusal(self, gates: Gates, ranges: int) -> tuple[str, str] | None:
        """The gate that stops a build of ``ranges`` ranges and why (with the figure and the limit); None when it
        may go on."""
        refused = gates.refusal(ranges, self.found, self.summary.baseline)
        if refused is None:
            return None
        how = (
            "the live version keeps answering (to accept this change once: the admin module's accept, or make fetch "
            f"DATASET=<name> ACCEPT=1; or upload _settings.json with a higher {refused.gate}, or null for none)"
        )
        return refused.gate, f"{refused.reason}: {how}"


@dataclass(kw_only=True, frozen=True, slots=True)
class Comparer:
    files: PieceFiles
    telemetry: Telemetry

    def compare(
        self,
        dataset: str,
        build: int,
        families: Mapping[int, FamilyRanges],
        pieces: Mapping[int, Pieces],
        *,
        baseline: int | None,
        columns: Sequence[str] = (),
    ) -> Comparison:
        """Keep this build's pieces, compare them with the ``baseline`` version's (the live one), and keep the
        stretches whose answer changed, with their new data (``changes_key``): one pass over the live version's file."""
        self.files.put_lines(pieces_key(dataset, build), piece_lines(families, pieces))
        if baseline is None:
            return Comparison(DiffSummary(note="the first version of the dataset: nothing to compare with"))
        old = self.files.lines_if_any(pieces_key(dataset, baseline))
        if old is None:
            note = f"version {baseline} was built before versions kept their pieces: nothing to compare with"
            return Comparison(DiffSummary(note=note))
        # One pass over both: the changed stretches are written as they are found, then the counts are complete
        sweep = Sweep(
            (parse_piece_line(line.decode()) for line in old),
            (parse_piece_line(line) for line in piece_lines(families, pieces)),
        )
        self.files.put_lines(changes_key(dataset, build), _change_lines(sweep.changes(), families, pieces, columns))
        found = sweep.result()
        summary = _summary(baseline, found)
        self.telemetry.metrics.add_metric(name="ChangedPercent", unit=MetricUnit.Percent, value=found.max_percent)
        removed = max(float(share * 100) for loss in found.loss.values() for share in loss.fractions())
        self.telemetry.metrics.add_metric(name="RemovedPercent", unit=MetricUnit.Percent, value=removed)
        return Comparison(summary, found)

    def forget(self, dataset: str, build: int) -> None:
        """Delete the pieces a build kept: it will never go live, so no build compares with it."""
        self.files.delete_files([pieces_key(dataset, build)])


def _summary(baseline: int, found: Diff) -> DiffSummary:
    v4, v6 = found.loss[V4], found.loss[V6]
    return DiffSummary(
        baseline,
        None,
        found.added,
        found.removed,
        found.changed,
        found.unchanged,
        found.percent_v4,
        found.percent_v6,
        live_pieces_ipv4=v4.pieces,
        live_pieces_ipv6=v6.pieces,
        removed_percent_pieces_ipv4=float(v4.pieces_fraction() * 100),
        removed_percent_pieces_ipv6=float(v6.pieces_fraction() * 100),
        removed_percent_addresses_ipv4=float(v4.addresses_fraction() * 100),
        removed_percent_addresses_ipv6=float(v6.addresses_fraction() * 100),
    )


def _change_lines(
    changes: Iterable[Change],
    families: Mapping[int, FamilyRanges],
    pieces: Mapping[int, Pieces],
    columns: Sequence[str],
) -> Iterator[str]:
    """One JSON line per changed stretch: its bounds, how it changed, and what it answers now (null: NOT_FOUND)."""
    for family, start, end, before, after in changes:
        data = None
        if after is not None:  # the stretch lies in one new piece: adjacent pieces never share a hash
            held = pieces[family]
            source = held.sources[bisect_right(held.starts, start) - 1]
            data = dict(zip(columns, families[family].values[source], strict=False))
        kind = "added" if before is None else "removed" if after is None else "changed"
        line = {
            "start": format_address(family, start),
            "end": format_address(family, end),
            "change": kind,
            "data": data,
        }
        yield json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"
