"""Reserved addresses: the IANA IPv4 and IPv6 Special-Purpose Address Registries, as data.

The table is ``reserved.json`` beside this module: each entry's network, name, references (``rfc``, as the
registry gives them, several documents separated by commas) and "Globally Reachable" (``global``: true, false, or
null where the registry says N/A or nothing), and each registry's "Last Updated" date. It is read
once per container, on first use. Entries nest (``192.0.0.0/24`` holds ``192.0.0.9/32``); the most specific entry
that contains an address answers. Addresses are ``(family, integer)`` pairs as ``fencepost.core.space.addresses`` parses
them, so an IPv4-mapped address (``::ffff:10.0.0.1``) is asked as IPv4 and answered by the IPv4 registry
(``Private-Use``); the IPv6 registry's ``::ffff:0:0/96`` entry is kept in the table but never answers a lookup.

A lookup is one binary search: the nested entries are flattened, per family, into disjoint stretches, each holding
the most specific entry that covers it (or none). ``first_unreachable`` walks the same stretches to find the first
space no public feed should answer for (the ``reserved_space`` gate, ``core.folders.gates``).
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

from fencepost.core.space.addresses import BITS, V4, V6, parse_boundary

TABLE: Final = Path(__file__).with_name("reserved.json")


@dataclass(frozen=True, slots=True)
class Reserved:
    """One registry entry: ``network`` in canonical CIDR form, covering ``first`` to ``last`` of ``family``."""

    name: str
    network: str
    rfc: str
    family: int
    first: int
    last: int
    prefix: int
    reachable: bool | None = None  # the registry's "Globally Reachable" (None: N/A, or not given)

    def body(self) -> dict[str, str]:
        return {"name": self.name, "network": self.network, "rfc": self.rfc}

    def contains(self, family: int, address: int) -> bool:
        return family == self.family and self.first <= address <= self.last

    def text(self) -> str:
        """``10.0.0.0/8 (Private-Use, RFC 1918)``: the entry as a reason names it."""
        return f"{self.network} ({self.name}, {self.rfc})"


@dataclass(frozen=True, slots=True)
class Registry:
    """The entries of both registries, and per family the flattened stretches a lookup searches."""

    entries: tuple[Reserved, ...]
    updated: dict[str, str]  # registry name -> its "Last Updated" date
    _starts: dict[int, list[int]]
    _answers: dict[int, list[Reserved | None]]

    def find(self, family: int, address: int) -> Reserved | None:
        """The most specific entry that contains the address, or None."""
        starts = self._starts[family]
        index = bisect_right(starts, address) - 1
        return self._answers[family][index] if index >= 0 else None

    def first_unreachable(self, pieces: Mapping[int, tuple[Sequence[int], Sequence[int]]]) -> Reserved | None:
        """The first space, in address order (IPv4 first), that the registry marks not globally reachable and that
        any piece overlaps (``pieces[family]``: the sorted, disjoint pieces' starts and ends), named by the widest
        such entry that holds it (``0.0.0.0/8`` rather than ``0.0.0.0/32``). Nested entries answer as lookups do:
        ``192.0.0.9/32`` (reachable) inside ``192.0.0.0/24`` (not) is no finding by itself. One binary search per
        stretch of the table: a build of millions of pieces is checked in microseconds."""
        for family, (starts, ends) in sorted(pieces.items()):
            bounds = self._starts[family]
            for index, found in enumerate(self._answers[family]):
                if found is None or found.reachable is not False:
                    continue
                first = bounds[index]
                last = bounds[index + 1] - 1 if index + 1 < len(bounds) else found.last
                at = bisect_right(starts, last) - 1  # the last piece starting at or before the stretch's end
                if at >= 0 and ends[at] >= first:
                    holding = [e for e in self.entries if e.reachable is False and e.contains(family, first)]
                    return min(holding, key=lambda entry: entry.prefix)
        return None


def entry(record: dict[str, Any]) -> Reserved:
    """An entry of the table, ``ValueError`` if its network is not an address and a prefix length with the host
    bits zero (a test also checks that each is written in canonical form)."""
    text = str(record["network"])
    address, _, length = text.partition("/")
    family, first = parse_boundary(address)  # IPv6 text stays IPv6: ::ffff:0:0/96 is an IPv6 entry
    if not length.isdigit() or not 0 <= int(length) <= BITS[family]:
        raise ValueError(f"{text!r} has no valid prefix length")
    prefix = int(length)
    host = (1 << (BITS[family] - prefix)) - 1
    if first & host:
        raise ValueError(f"{text!r} has host bits set")
    reachable = record.get("global")
    if reachable is not None and not isinstance(reachable, bool):
        raise ValueError(f"{text!r}: global must be true, false or null")
    return Reserved(str(record["name"]), text, str(record["rfc"]), family, first, first | host, prefix, reachable)


def flatten(entries: tuple[Reserved, ...], family: int) -> tuple[list[int], list[Reserved | None]]:
    """Disjoint stretches, in address order, each with the most specific entry covering it (or None)."""
    own = [item for item in entries if item.family == family]
    bounds = sorted({0} | {item.first for item in own} | {item.last + 1 for item in own})
    starts: list[int] = []
    answers: list[Reserved | None] = []
    for start in bounds:
        covering = [item for item in own if item.first <= start <= item.last]
        best = max(covering, key=lambda item: item.prefix, default=None)
        if answers and answers[-1] is best:
            continue
        starts.append(start)
        answers.append(best)
    return starts, answers


def build(document: dict[str, Any]) -> Registry:
    entries = tuple(entry(record) for record in document["entries"])
    flat = {family: flatten(entries, family) for family in (V4, V6)}
    return Registry(
        entries=entries,
        updated={registry["name"]: registry["last_updated"] for registry in document["registries"]},
        _starts={family: starts for family, (starts, _) in flat.items()},
        _answers={family: answers for family, (_, answers) in flat.items()},
    )


@cache
def registry() -> Registry:
    """The table, read on first use and kept for the life of the container."""
    return build(json.loads(TABLE.read_text(encoding="utf-8")))


def reserved(family: int, address: int) -> Reserved | None:
    """The registry entry that answers the address: the most specific one containing it, or None."""
    return registry().find(family, address)


def reserved_field(family: int, address: int) -> dict[str, dict[str, str]]:
    """``{"reserved": {...}}`` for an address in the registry, else ``{}``: to spread into an answer."""
    found = registry().find(family, address)
    return {} if found is None else {"reserved": found.body()}
