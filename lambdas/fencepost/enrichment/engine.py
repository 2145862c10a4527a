"""The join: a batch of address texts in, each row's answer objects out (``enrichment.shape``), without a Python
step per row.

1. The texts are parsed at once (``enrichment.address_column``).
2. Each dataset's version per row is resolved (``enrichment.resolving``): one for the job, or one per row's instant.
3. Each version's arrays are searched for all its rows at once (``FamilyTable.below``): the piece each row is in.
4. Each keyed dataset the versions join gets its version per row (``enrichment.keyed_joins``), live at the instant
   the row's range version is resolved at.
5. Rows that get the same objects share a key: the piece in each dataset when the fields selected are the same for
   every address of a piece (``Shape.by_piece``), else the address itself; and the keyed version each row joins.
   Each distinct key is answered once, by the lookup's own read path over the arrays (``Lookup.answer``) and its own
   answer code (the joined parts too: ``Pinned.attach``), from the key's first row.

A batch's result is the distinct objects and, for each row, the index of its own (-1: the row has no address).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fencepost.core.space.addresses import V4, V6
from fencepost.core.space.aliases import alias_of
from fencepost.enrichment.address_column import INVALID, Addresses, parse_addresses
from fencepost.enrichment.keyed_joins import NOT_JOINED, KeyedJoins, KeyedSlots
from fencepost.enrichment.resolving import Resolver
from fencepost.enrichment.shape import Objects, Shape
from fencepost.enrichment.table import VersionTable, bound_int
from fencepost.errors import ServiceError
from fencepost.reading.answers import Answer, Outcome, Unknown

MAX_KEPT = 1_000_000  # distinct answers kept across batches (by piece), before the oldest are dropped


@dataclass(frozen=True, slots=True)
class Batch:
    """A batch enriched: row ``i``'s objects are ``objects[ids[i]]`` (``ids[i] == -1``: the row has no address, and
    ``invalid[i]`` says why). An id names the same objects in every batch of a job, but for those in ``fresh``.
    ``versions`` counts the rows each dataset's version answered, ``refused`` the rows of each dataset with no version
    then."""

    ids: npt.NDArray[np.int64]
    objects: dict[int, Objects]
    fresh: frozenset[int]  # ids of objects made for this batch alone (never met again)
    invalid: dict[int, str]
    versions: dict[tuple[str, int], int]
    refused: dict[str, int]


@dataclass(frozen=True, slots=True)
class _Found:
    slots: npt.NDArray[np.int32]  # each row's version (``Resolver.slots``; negative: refused, ``errors`` says why)
    places: npt.NDArray[np.int64]  # each row's piece in it (-1: none)
    errors: dict[int, ServiceError]


class Enricher:
    def __init__(self, shape: Shape, resolvers: Sequence[Resolver], *, errors_shown: bool) -> None:
        self.shape, self.resolvers = shape, list(resolvers)
        self.by_piece = shape.by_piece(errors_shown=errors_shown)
        self.texts = shape.shows_bounds() or not self.by_piece
        self.data_only = shape.data_only and self.by_piece
        self._kept: dict[tuple[int, ...], int] = {}  # a by-piece key's id
        self._objects: dict[int, Objects] = {}
        self._next = 0
        self._value_ids: dict[int, npt.NDArray[np.int64]] = {}  # a version's (by slot): ``value_ids``
        self.joins = KeyedJoins(self.resolvers)

    def enrich(
        self, texts: Sequence[str], instants: npt.NDArray[np.float64] | None = None, *, fixed: float | None = None
    ) -> Batch:
        """Enrich one batch; ``instants`` (epoch seconds, NaN where a row has none) picks each row's versions, else
        every row is answered by the version live at ``fixed`` (None: now)."""
        parsed = parse_addresses(texts)
        found = [self._found(resolver, parsed, instants, fixed) for resolver in self.resolvers]
        keyed = self.joins.slots([each.slots for each in found], instants, fixed)
        columns = [column for each in found for column in (each.slots.astype(np.int64), self._keyed(each))]
        columns += keyed.columns
        stable = self.by_piece and not any(_aliased(resolver) for resolver in self.resolvers)
        if not stable:
            columns.append(_address_codes(parsed))
            self._kept.clear()
            self._objects.clear()
        valid = parsed.family != INVALID
        inverse, first = _keys(columns, valid)
        ids_of = np.empty(len(first), dtype=np.int64)
        objects: dict[int, Objects] = {}
        fresh: set[int] = set()
        keys = np.stack(columns, axis=1)[first].tolist()
        for unique, row in enumerate(first.tolist()):
            key = tuple(keys[unique])
            known = self._kept.get(key) if stable else None
            if known is None:
                known = self._next
                self._next += 1
                made = self._answered(parsed, row, found, keyed)
                if stable and _kept(key, len(found)):
                    self._objects[known] = made
                    self._remember(key, known)
                else:
                    fresh.add(known)
                objects[known] = made
            else:
                objects[known] = self._objects[known]
            ids_of[unique] = known
        ids = np.full(len(parsed), -1, dtype=np.int64)
        ids[valid] = ids_of[inverse]
        versions, refused = self._counts(found, valid)
        joined, unjoined = self.joins.counts(keyed, valid)
        versions.update(joined)
        for name, count in unjoined.items():
            refused[name] = refused.get(name, 0) + count
        return Batch(ids, objects, frozenset(fresh), parsed.errors, versions, refused)

    def _keyed(self, found: _Found) -> npt.NDArray[np.int64]:
        """What tells rows apart within a version: with only data selected, the piece's values (every piece of the
        same values gets the same answer, so a country's rows share one whatever their piece); else the piece."""
        if not self.data_only:
            return found.places
        resolver = self.resolvers[0]
        keyed = np.full(len(found.places), -1, dtype=np.int64)
        for slot in np.unique(found.slots[found.places >= 0]).tolist():
            rows = np.flatnonzero((found.slots == slot) & (found.places >= 0))
            if slot not in self._value_ids:  # worked out once per version
                self._value_ids[slot] = value_ids(resolver.slots[slot].table)
            keyed[rows] = self._value_ids[slot][found.places[rows]]
        return keyed

    def _remember(self, key: tuple[int, ...], known: int) -> None:
        if len(self._kept) >= MAX_KEPT:
            oldest = next(iter(self._kept))
            self._objects.pop(self._kept.pop(oldest), None)
        self._kept[key] = known

    def _found(
        self, resolver: Resolver, parsed: Addresses, instants: npt.NDArray[np.float64] | None, fixed: float | None
    ) -> _Found:
        if instants is None:
            slots = np.full(len(parsed), resolver.fixed(fixed), dtype=np.int32)
            errors: dict[int, ServiceError] = {}
        else:
            slots, errors = resolver.per_row(instants)
        return _Found(slots, self._places(resolver, parsed, slots), errors)

    def _counts(
        self, found: Sequence[_Found], valid: npt.NDArray[np.bool_]
    ) -> tuple[dict[tuple[str, int], int], dict[str, int]]:
        versions: dict[tuple[str, int], int] = {}
        refused: dict[str, int] = {}
        for resolver, each in zip(self.resolvers, found, strict=True):
            chosen = each.slots[valid].astype(np.int64)
            low = int(chosen.min(initial=0))
            counts = np.bincount(chosen - low)
            for slot, rows in ((low + at, int(counts[at])) for at in np.flatnonzero(counts).tolist()):
                if slot >= 0:
                    versions[(resolver.dataset, resolver.slots[slot].info.version)] = rows
                else:
                    refused[resolver.dataset] = refused.get(resolver.dataset, 0) + rows
        return versions, refused

    def _places(self, resolver: Resolver, parsed: Addresses, slots: npt.NDArray[np.int32]) -> npt.NDArray[np.int64]:
        """Each row's piece in its version (IPv6 pieces after the IPv4 ones); -1: no piece holds the address."""
        places = np.full(len(parsed), -1, dtype=np.int64)
        for slot in np.unique(slots[slots >= 0]).tolist():
            table = resolver.slots[slot].table
            v4_count = len(table.families[V4])
            for family, values, offset in ((V4, parsed.v4, 0), (V6, parsed.v6, v4_count)):
                rows = np.flatnonzero((slots == slot) & (parsed.family == family))
                if not len(rows):
                    continue
                pieces = table.families[family]
                below = pieces.below(values[rows])
                inside = below >= 0
                inside[inside] = values[rows][inside] <= pieces.ends[below[inside]]
                aliases = resolver.slots[slot].info.aliases
                if family == V6 and aliases:  # answered through the IPv4 address it carries: the read path's
                    inside &= np.array([alias_of(aliases, bound_int(V6, v)) is None for v in values[rows]], bool)
                places[rows[inside]] = below[inside] + offset
        return places

    def _answered(self, parsed: Addresses, row: int, found: Sequence[_Found], keyed: KeyedSlots) -> Objects:
        """The objects of one row: each dataset's outcome from the piece the join found (the lookup's read path for
        the rest: misses, and addresses a version answers through an alias), with the keyed versions the row joins
        attached (``Pinned.attach``), composed as ``GET /lookup`` does."""
        family = int(parsed.family[row])
        pinned = self.joins.pinned(keyed, row)
        if self.data_only:  # a found answer is its piece's values: nothing else of it is made
            slot, place = int(found[0].slots[row]), int(found[0].places[row])
            if slot >= 0 and place >= 0:
                version = self.resolvers[0].slots[slot]
                table = version.table.families[family]
                local = place - len(version.table.families[V4]) if family == V6 else place
                values = table.values[int(table.rows[local])]
                parts = pinned.parts(version.info, values) if version.info.keyed_joins else ()
                return self.shape.data_object(version.info.columns, values, parts)
        address = bound_int(family, parsed.v4[row] if family == V4 else parsed.v6[row])
        outcomes: list[Outcome] = []
        for resolver, each in zip(self.resolvers, found, strict=True):
            slot, place = int(each.slots[row]), int(each.places[row])
            if slot < 0:
                outcomes.append(Unknown(resolver.dataset, each.errors[slot]))
                continue
            version = resolver.slots[slot]
            if place < 0:
                outcomes.append(version.lookup.answer(version.info, family, address))
                continue
            local = place - len(version.table.families[V4]) if family == V6 else place
            hit = version.table.families[family].hit(local, texts=self.texts)
            outcomes.append(Answer(family, address, resolver.dataset, hit, version.info))
        return self.shape.compose(family, address, [pinned.attach(outcome) for outcome in outcomes])


def _kept(key: tuple[int, ...], datasets: int) -> bool:
    """Whether a key's objects are kept across batches: not those of a row refused at its own instant (the reason
    names the instant), by a range dataset (a negative slot) or by a keyed one (below ``NOT_JOINED``)."""
    ranges, keyed = key[: 2 * datasets : 2], key[2 * datasets :]
    return min(ranges) >= 0 and min(keyed, default=NOT_JOINED) >= NOT_JOINED


def _aliased(resolver: Resolver) -> bool:
    return any(slot.info.aliases for slot in resolver.slots)


def _address_codes(parsed: Addresses) -> npt.NDArray[np.int64]:
    """A number per distinct address: IPv4 values as they are, IPv6 ones numbered above them."""
    codes = parsed.v4.astype(np.int64)
    six = np.flatnonzero(parsed.family == V6)
    if len(six):
        _, inverse = np.unique(parsed.v6[six], return_inverse=True)
        codes[six] = (1 << 32) + inverse
    return codes


def _keys(
    columns: Sequence[npt.NDArray[np.int64]], valid: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """For each valid row, its key among the valid rows (rows alike in every column share one), and each key's
    first row."""
    combined = _packed(columns)
    if combined is None:
        combined = np.zeros(len(valid), dtype=np.int64)
        for column in columns:
            _, codes = np.unique(column, return_inverse=True)
            _, combined = np.unique(combined * (int(codes.max(initial=0)) + 1) + codes, return_inverse=True)
    rows = np.flatnonzero(valid)
    _, first, inverse = np.unique(combined[rows], return_index=True, return_inverse=True)
    return inverse, rows[first]


def _packed(columns: Sequence[npt.NDArray[np.int64]]) -> npt.NDArray[np.int64] | None:
    """The columns as one number per row, each column's span a digit of it, when that fits in 62 bits (one sort
    then makes the keys); None when it does not."""
    combined = np.zeros(len(columns[0]) if columns else 0, dtype=np.int64)
    room = 1
    for column in columns:
        low, high = (int(column.min(initial=0)), int(column.max(initial=0))) if len(column) else (0, 0)
        room *= high - low + 1
        if room >= 1 << 62:
            return None
        combined = combined * (high - low + 1) + (column - low)
    return combined


def value_ids(table: VersionTable) -> npt.NDArray[np.int64]:
    """For each piece of a version (IPv6 pieces after the IPv4 ones), a number shared by the pieces whose values are
    the same."""
    families = [table.families[family] for family in (V4, V6)]
    values = [each for pieces in families for each in pieces.values]
    last = dict(zip(values, range(len(values)), strict=True))  # the same values: the same (last) row
    _, numbers = np.unique(np.fromiter(map(last.__getitem__, values), np.int64, len(values)), return_inverse=True)
    parts, offset = [], 0
    for pieces in families:
        of_row = numbers[offset : offset + len(pieces.values)].astype(np.int64)
        offset += len(pieces.values)
        parts.append(of_row[pieces.rows.astype(np.intp)] if len(pieces) else np.zeros(0, dtype=np.int64))
    return np.concatenate(parts)
