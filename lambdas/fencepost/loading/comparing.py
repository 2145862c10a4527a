"""Comparing a build with the live version, before anything of it is written, and the gate that may stop it.

Every build keeps its sorted pieces (bounds and a hash of each answer) in the bucket, beside its report
(``core.storage.objects.pieces_key``). The next build compares its own pieces with the live version's file by a
streaming merge (``core.versions.diffs``): only this build's pieces are held in memory. The comparison's figures, the
changes that went live in the folder's window (read from the dataset's history) and the first reserved network the build
answers for are what the folder's gates (``core.folders.gates``) decide on.

A gate never passes for want of a baseline: when the live version's file is missing (deleted, expired, or never
written), it is made again from the live version's items in the table, read in address order, and kept, so that
happens once; when even that cannot be done the build fails with the reason. Only a first version has no baseline.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.folders.gates import Gates, Refusal
from fencepost.core.space.addresses import V4, V6, format_address
from fencepost.core.space.reserved import Reserved, registry
from fencepost.core.storage.objects import changes_key, pieces_key
from fencepost.core.storage.piece_files import parse_piece_line, piece_lines
from fencepost.core.versions.build import FamilyRanges, Pieces
from fencepost.core.versions.diffs import Change, Diff, Sweep
from fencepost.core.versions.history import Timeline, changed_since
from fencepost.loading.ports import Clock, KeptFiles, Telemetry
from fencepost.model import DiffSummary, VersionInfo

FIRST = "the first version of the dataset: nothing to compare with"
ACCEPT = "to accept this change once: the admin module's accept, or make fetch DATASET=<name> ACCEPT=1"


class PieceFiles(KeptFiles, Protocol):
    def put_lines(self, key: str, lines: Iterable[str]) -> None: ...
    def lines_if_any(self, key: str) -> Iterator[bytes] | None: ...


class StoredVersions(Protocol):
    """A live version as the table holds it: what its pieces file is made again from."""

    def get(self, dataset: str, version: int) -> VersionInfo | None: ...
    def piece_lines(self, info: VersionInfo) -> Iterator[str]: ...


class Histories(Protocol):
    def timeline(self, name: str, *, consistent: bool = False) -> Timeline: ...


@dataclass(frozen=True, slots=True)
class Comparison:
    summary: DiffSummary
    found: Diff | None = None  # None: no baseline (a first version), or it could not be read (``missing``)
    earlier: tuple[float, float] = (0.0, 0.0)  # percent of each family's space changed in the window before
    reserved: Reserved | None = None  # the first reserved network the build answers for
    missing: str | None = None  # why the live version's pieces could not be read

    def refusal(self, gates: Gates, ranges: int) -> Refusal | None:
        """The gate that stops a build of ``ranges`` ranges and why (with the figure and the limit); None when it
        may go on."""
        if self.missing is not None:
            return Refusal("baseline", f"{self.missing}: the live version keeps answering ({ACCEPT})")
        found, baseline = self.found, self.summary.baseline
        refused = gates.refusal(ranges, found, baseline, earlier=self.earlier, reserved=self.reserved)
        if refused is None:
            return None
        if refused.gate == "reserved_space":
            change = 'or upload _settings.json with "reserved_space": "flag" or "allow"'
        else:
            change = f"or upload _settings.json with a higher {refused.gate}, or null for none"
        return Refusal(refused.gate, f"{refused.reason}: the live version keeps answering ({ACCEPT}; {change})")


@dataclass(kw_only=True, frozen=True, slots=True)
class Comparer:
    files: PieceFiles
    versions: StoredVersions
    history: Histories
    telemetry: Telemetry
    clock: Clock

    def compare(
        self,
        dataset: str,
        build: int,
        families: Mapping[int, FamilyRanges],
        pieces: Mapping[int, Pieces],
        *,
        baseline: int | None,
        gates: Gates,
        columns: Sequence[str] = (),
    ) -> Comparison:
        """Keep this build's pieces, compare them with the ``baseline`` version's (the live one), and keep the
        stretches whose answer changed, with their new data (``changes_key``): one pass over the live version's file.
        """
        self.files.put_lines(pieces_key(dataset, build), piece_lines(families, pieces))
        reserved = registry().first_unreachable({family: (p.starts, p.ends) for family, p in pieces.items()})
        shown = None if reserved is None else reserved.text()
        if baseline is None:
            return Comparison(DiffSummary(note=FIRST, reserved=shown), reserved=reserved)
        old, note = self._baseline(dataset, baseline)
        if old is None:
            return Comparison(DiffSummary(baseline, note, reserved=shown), reserved=reserved, missing=note)
        # One pass over both: the changed stretches are written as they are found, then the counts are complete
        sweep = Sweep(
            (parse_piece_line(line.decode()) for line in old),
            (parse_piece_line(line) for line in piece_lines(families, pieces)),
        )
        self.files.put_lines(changes_key(dataset, build), _change_lines(sweep.changes(), families, pieces, columns))
        found = sweep.result()
        timeline = self.history.timeline(dataset, consistent=True)
        earlier = changed_since(timeline, self.clock() - gates.change_window_hours * 3600)
        summary = _summary(baseline, found, earlier, note, shown)
        self.telemetry.metrics.add_metric(name="ChangedPercent", unit=MetricUnit.Percent, value=found.max_percent)
        removed = max(float(share * 100) for loss in found.loss.values() for share in loss.fractions())
        self.telemetry.metrics.add_metric(name="RemovedPercent", unit=MetricUnit.Percent, value=removed)
        return Comparison(summary, found, earlier, reserved)

    def forget(self, dataset: str, build: int) -> None:
        """Delete the pieces a build kept: it will never go live, so no build compares with it."""
        self.files.delete_files([pieces_key(dataset, build)])

    def _baseline(self, dataset: str, baseline: int) -> tuple[Iterator[bytes] | None, str | None]:
        """The live version's pieces file, and a note when it had to be made again from the table (or, with no
        lines, why it could not be)."""
        key = pieces_key(dataset, baseline)
        lines = self.files.lines_if_any(key)
        if lines is not None:
            return lines, None
        info = self.versions.get(dataset, baseline)
        if info is None:
            return None, (
                f"the pieces of version {baseline}, the live version, are missing ({key}) and its items are not in "
                "the table: no gate can compare this build with it"
            )
        self.files.put_lines(key, self.versions.piece_lines(info))  # kept: the next build reads the file
        self.telemetry.logger.warning(
            "the live version's pieces were missing: made again from its items",
            extra={"dataset": dataset, "version": baseline, "key": key},
        )
        return self.files.lines_if_any(key), f"the pieces of version {baseline} were missing: made again from its items"


def _summary(
    baseline: int, found: Diff, earlier: tuple[float, float], note: str | None, reserved: str | None
) -> DiffSummary:
    v4, v6 = found.loss[V4], found.loss[V6]
    growth = {family: found.growth(family) for family in (V4, V6)}
    return DiffSummary(
        baseline,
        note,
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
        added_percent_addresses_ipv4=None if growth[V4] is None else float(growth[V4] * 100),
        added_percent_addresses_ipv6=None if growth[V6] is None else float(growth[V6] * 100),
        window_changed_percent_ipv4=earlier[0] + found.percent_v4,
        window_changed_percent_ipv6=earlier[1] + found.percent_v6,
        reserved=reserved,
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
