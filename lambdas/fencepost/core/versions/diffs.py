"""What changed between two versions, from their sorted pieces alone: no AWS, no version read back from DynamoDB.

A build writes one line per stored piece (``core.storage.piece_files``: family, bounds in hex, and a hash of what a
lookup there answers, its metadata and its range). Two such streams, both in address order, are compared by a streaming
merge (``segments``) that cuts the address space into the stretches where the pair (old piece, new piece) is constant;
``diff`` counts them and ``changed_pieces`` lists the stretches whose answer differs. Neither holds more than one
piece of each stream, so two versions of millions of pieces compare in constant memory.

An address in no piece answers NOT_FOUND, so found -> NOT_FOUND and NOT_FOUND -> found are changes like any other.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from fencepost.core.space.addresses import BITS, FAMILIES, TOP, V4, V6
from fencepost.core.storage.piece_files import PieceLine


class Change(NamedTuple):
    """A stretch ``[start, end]`` of ``family`` whose answer changed; a hash of None is NOT_FOUND."""

    family: int
    start: int
    end: int
    old_hash: str | None
    new_hash: str | None


class Loss(NamedTuple):
    """What one family of the old version lost: its pieces and the addresses they cover, and how many of each no
    longer answer the same (a piece counts once any of its addresses does; NOT_FOUND now counts as well)."""

    pieces: int = 0
    pieces_lost: int = 0
    addresses: int = 0
    addresses_lost: int = 0

    def pieces_fraction(self) -> Fraction:
        """The exact share of the old pieces lost, between 0 and 1 (0 when there were none)."""
        return Fraction(self.pieces_lost, self.pieces) if self.pieces else Fraction(0)

    def addresses_fraction(self) -> Fraction:
        """The exact share of the addresses the old pieces covered that are lost, between 0 and 1."""
        return Fraction(self.addresses_lost, self.addresses) if self.addresses else Fraction(0)

    def fractions(self) -> tuple[Fraction, Fraction]:
        return self.pieces_fraction(), self.addresses_fraction()


def _no_loss() -> dict[int, Loss]:
    return dict.fromkeys(FAMILIES, Loss())


@dataclass(frozen=True, slots=True)
class Diff:
    """Counts of a comparison. Pieces are matched by their bounds: same bounds and hash are ``unchanged``, same
    bounds and another hash ``changed``; the others are ``added`` (new) or ``removed`` (old).
    ``changed_v4``/``changed_v6`` count the addresses whose answer differs, exactly, of the whole address space;
    ``loss`` measures the same against what the old version held, per family; ``gained`` counts, per family, the
    addresses the old version did not answer (NOT_FOUND) that the new one does."""

    unchanged: int = 0
    changed: int = 0
    added: int = 0
    removed: int = 0
    changed_v4: int = 0
    changed_v6: int = 0
    loss: dict[int, Loss] = field(default_factory=_no_loss)
    gained: dict[int, int] = field(default_factory=lambda: dict.fromkeys(FAMILIES, 0))

    def growth(self, family: int) -> Fraction | None:
        """The addresses gained, as an exact share of those the old version answered; None when it answered none
        of the family's (any gain is then unbounded growth)."""
        covered = self.loss[family].addresses
        return Fraction(self.gained[family], covered) if covered else None

    def fraction(self, family: int) -> Fraction:
        """The exact share of ``family``'s address space whose answer changed, between 0 and 1."""
        return Fraction(self.changed_v4 if family == V4 else self.changed_v6, 1 << BITS[family])

    @property
    def percent_v4(self) -> float:
        return float(self.fraction(V4) * 100)

    @property
    def percent_v6(self) -> float:
        return float(self.fraction(V6) * 100)

    @property
    def max_percent(self) -> float:
        return max(self.percent_v4, self.percent_v6)

    def exceeds(self, percent: float | Fraction) -> bool:
        """Whether either family changed in more than ``percent`` of its addresses, decided exactly (no rounding)."""
        limit = Fraction(percent) / 100
        return any(self.fraction(family) > limit for family in FAMILIES)


def _checked(lines: Iterable[PieceLine], which: str) -> Iterator[PieceLine]:
    """The pieces as given, after checking each against the previous: families in order, each piece within its
    family's space, after the previous one and not overlapping it."""
    previous: PieceLine | None = None
    for number, piece in enumerate(lines, 1):
        family, start, end, _ = piece
        if family not in FAMILIES:
            raise ValueError(f"{which} piece {number}: unknown address family {family}")
        if not 0 <= start <= end <= TOP[family]:
            raise ValueError(f"{which} piece {number}: bounds {start:#x}..{end:#x} are not a range of IPv{family}")
        if previous is not None and (family < previous.family or (family == previous.family and start <= previous.end)):
            raise ValueError(
                f"{which} piece {number} (IPv{family} {start:#x}..{end:#x}) is not after the previous one "
                f"(IPv{previous.family} {previous.start:#x}..{previous.end:#x}): pieces must be sorted and disjoint"
            )
        previous = piece
        yield piece


def segments(
    old: Iterable[PieceLine], new: Iterable[PieceLine]
) -> Iterator[tuple[int, int, int, PieceLine | None, PieceLine | None]]:
    """``(family, start, end, old piece, new piece)`` for every stretch covered by either stream, in order, cut
    wherever either piece starts or ends. Every address of a piece is in exactly one stretch, and one stretch begins
    at each piece's start. Streams are checked as they are read (``ValueError``)."""
    olds, news = _checked(old, "old"), _checked(new, "new")
    o, n = next(olds, None), next(news, None)
    o_at = o.start if o else 0  # the first address of ``o`` not yet in a stretch
    n_at = n.start if n else 0
    while o is not None or n is not None:
        if o is not None and n is not None and (o.family, o_at) == (n.family, n_at):
            end = min(o.end, n.end)
            yield o.family, o_at, end, o, n
            o_at = n_at = end + 1
        elif n is None or (o is not None and (o.family, o_at) < (n.family, n_at)):
            assert o is not None
            end = min(o.end, n_at - 1) if n is not None and n.family == o.family else o.end
            yield o.family, o_at, end, o, None
            o_at = end + 1
        else:
            end = min(n.end, o_at - 1) if o is not None and o.family == n.family else n.end
            yield n.family, n_at, end, None, n
            n_at = end + 1
        if o is not None and o_at > o.end:
            o = next(olds, None)
            o_at = o.start if o else 0
        if n is not None and n_at > n.end:
            n = next(news, None)
            n_at = n.start if n else 0


class Sweep:
    """One streaming pass over two versions' pieces: the stretches whose answer changed (``changes``) and, once
    they are all read, the counts of the whole comparison (``result``)."""

    def __init__(self, old: Iterable[PieceLine], new: Iterable[PieceLine]) -> None:
        self._segments = segments(old, new)
        self._news = self._matched = self._unchanged = 0
        self._changed = dict.fromkeys(FAMILIES, 0)
        self._olds = dict.fromkeys(FAMILIES, 0)
        self._olds_lost = dict.fromkeys(FAMILIES, 0)
        self._covered = dict.fromkeys(FAMILIES, 0)
        self._covered_lost = dict.fromkeys(FAMILIES, 0)
        self._gained = dict.fromkeys(FAMILIES, 0)
        self._done = False

    def changes(self) -> Iterator[Change]:
        """The stretches whose answer changed, in order; touching stretches with the same old and new hashes
        merged. Read once."""
        pending: Change | None = None
        lost: PieceLine | None = None  # the last old piece counted as lost
        for family, start, end, o, n in self._segments:
            self._news += n is not None and start == n.start
            if o is not None:
                self._olds[family] += start == o.start
                self._covered[family] += end - start + 1
            if o is not None and n is not None and (o.start, o.end) == (n.start, n.end):
                self._matched += 1  # same bounds: this stretch is the whole of both pieces
                self._unchanged += o.hash == n.hash
            before, after = (o.hash if o else None), (n.hash if n else None)
            if before == after:
                continue
            self._changed[family] += end - start + 1
            if o is None:
                self._gained[family] += end - start + 1
            else:
                self._covered_lost[family] += end - start + 1
                if lost is not o:
                    self._olds_lost[family] += 1
                    lost = o
            if pending is not None and (pending.family, pending.end + 1, pending.old_hash, pending.new_hash) == (
                family,
                start,
                before,
                after,
            ):
                pending = pending._replace(end=end)
                continue
            if pending is not None:
                yield pending
            pending = Change(family, start, end, before, after)
        if pending is not None:
            yield pending
        self._done = True

    def result(self) -> Diff:
        """The comparison's counts; only once ``changes`` has been read to the end."""
        if not self._done:
            raise RuntimeError("the sweep's changes have not all been read")
        loss = {
            family: Loss(self._olds[family], self._olds_lost[family], self._covered[family], self._covered_lost[family])
            for family in FAMILIES
        }
        return Diff(
            unchanged=self._unchanged,
            changed=self._matched - self._unchanged,
            added=self._news - self._matched,
            removed=sum(self._olds.values()) - self._matched,
            changed_v4=self._changed[V4],
            changed_v6=self._changed[V6],
            loss=loss,
            gained=dict(self._gained),
        )


def diff(old: Iterable[PieceLine], new: Iterable[PieceLine]) -> Diff:
    """Compare two versions' pieces, each sorted (``piece_lines`` order) and disjoint, in one streaming pass."""
    sweep = Sweep(old, new)
    for _ in sweep.changes():
        pass
    return sweep.result()


def changed_pieces(old: Iterable[PieceLine], new: Iterable[PieceLine]) -> Iterator[Change]:
    """The stretches whose answer changed, in order; touching stretches with the same old and new hashes merged."""
    return Sweep(old, new).changes()
