"""The one shape of a lookup's answer, declared once.

``FIELDS`` names every top-level field an answer can have and says what it holds; ``FOUND``, ``MISSED`` and
``COMBINED`` say which of them each kind of answer carries. The answers below build exactly those (a test checks
it), ``fencepost.reading.fields`` selects among them, and the OpenAPI document describes them from here. A new field is
an entry here and a line in the answer that carries it. The fields of ``ON_REQUEST`` are added only when ``fields=``
names them (``fencepost.reading.version_dates``): a default answer stays as it was.

- ``Answer`` (a found range) and ``Miss`` (NOT_FOUND, with the gap around the address);
- several datasets: ``combined`` (every dataset's answer under ``answers``, and the ``match`` where all of them
  hold) and ``overlay`` (``mode=first``: the first dataset with a range answers, its ``match`` narrowed by the gaps
  of the datasets before it). Everything here is pure: the outcomes come in already looked up
  (``fencepost.reading.lookup``), one per dataset, from versions pinned for the whole request.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from fencepost.core.space.addresses import format_address
from fencepost.core.space.gaps import Stretch, intersect
from fencepost.core.space.networks import cidrs, network
from fencepost.core.space.reserved import reserved_field
from fencepost.core.storage.items import Hit
from fencepost.errors import NotFound, ServiceError
from fencepost.model import VersionInfo
from fencepost.reading.joined import JoinedPart

FIELDS: Final = {
    "ip": "The address looked up, in canonical form (in a batch's errors: as it was sent).",
    "dataset": "The dataset that answered (or was read).",
    "version": "The version of the dataset that answered (or was read).",
    "range": "The range as its file gave it, and the fewest CIDR blocks that together are exactly it.",
    "match": "Where this answer holds (with several datasets: where every answer holds), with the largest CIDR "
    "block in it around the address: cache the answer for exactly that.",
    "data": "Metadata columns by name, in file order.",
    "reserved": "Present only when the address is in the IANA Special-Purpose Address Registries.",
    "gap": "NOT_FOUND: the whole stretch around the address that no range of the version covers, with the largest "
    "CIDR block in it around the address. Absent for versions loaded before gaps were stored: a reload adds it.",
    "versions": "NOT_FOUND with `mode=first`: the version of each dataset of the list, none of which answers.",
    "error": "Why there is no answer: a stable code and a message.",
    "answers": "With several datasets: each dataset's answer, in request order.",
    "as_of": "The instant asked for with `as_of` (RFC 3339, UTC): the answer is from the version live then.",
    "built_at": "Only when `fields` names it: when the version that answered was built (RFC 3339, UTC).",
    "joined": "Present when the dataset joins keyed datasets into its answers: for each, the keyed `dataset` and "
    "`version` read (live, or live at `as_of`), the column the key came `on`, the `key`, whether a row was `found`, "
    "and an `error` when the keyed dataset could not be read. The joined columns are in `data` (null without a row).",
    "data_date": "Only when `fields` names it: the date of the answering version's data as its publisher states it "
    "(`date`, and its `source`: `mmdb`, `rir`, `document`, `last-modified` or `name`, "
    "and `object`); null when none does.",
}
FOUND: Final = (
    "ip",
    "dataset",
    "version",
    "range",
    "match",
    "data",
    "joined",
    "reserved",
    "as_of",
    "built_at",
    "data_date",
)
MISSED: Final = ("ip", "dataset", "version", "gap", "versions", "reserved", "error", "as_of", "built_at", "data_date")
COMBINED: Final = ("ip", "match", "reserved", "answers", "as_of")
SELECTABLE: Final = tuple(name for name in FIELDS if name != "answers")  # what ``fields=`` may name
ON_REQUEST: Final = ("built_at", "data_date")  # never in a default answer: only when ``fields=`` names them


class Mode(StrEnum):
    ALL = "all"  # every dataset's answer, under ``answers``
    FIRST = "first"  # an overlay: the first dataset with a range answers


@dataclass(frozen=True, slots=True)
class Answer:
    """A found range, ready to serialize."""

    family: int
    address: int
    dataset: str
    hit: Hit
    info: VersionInfo
    joined: tuple[JoinedPart, ...] = ()  # the keyed joins, read for the request (``fencepost.reading.joining``)

    def body(self, fields: Collection[str] | None = None) -> dict[str, Any]:
        """The answer; ``fields``: only those top-level fields besides ``ip`` (what a selection keeps), the others
        not even computed."""
        hit, family = self.hit, self.family
        body: dict[str, Any] = {"ip": format_address(family, self.address)}
        if fields is None or "dataset" in fields:
            body["dataset"] = self.dataset
        if fields is None or "version" in fields:
            body["version"] = self.info.version
        if fields is None or "range" in fields:
            start, end = hit.range_texts or (hit.start_text, hit.end_text)
            body["range"] = {"start": start, "end": end, "cidrs": cidrs(family, hit.range_start, hit.range_end)}
        if fields is None or "match" in fields:
            shown = network(family, hit.start, hit.end, self.address)
            body["match"] = {"start": hit.start_text, "end": hit.end_text, "network": shown}
        if fields is None or "data" in fields:
            body["data"] = dict(zip(self.info.columns, hit.values, strict=False))
            for part in self.joined:
                body["data"].update(part.data())
        if self.joined and (fields is None or "joined" in fields):
            body["joined"] = [part.body() for part in self.joined]
        if fields is None or "reserved" in fields:
            body.update(reserved_field(family, self.address))
        return body

    @property
    def stretch(self) -> Stretch:
        """The addresses that get this same answer: the piece."""
        return self.hit.start, self.hit.end


@dataclass(frozen=True, slots=True)
class Miss:
    """No range of the version contains the address; ``gap`` is the whole stretch around it that none covers
    (None for versions built before gaps were stored)."""

    family: int
    address: int
    info: VersionInfo
    gap: Stretch | None

    @property
    def stretch(self) -> Stretch:
        """The addresses that get this same answer: the gap, or (not knowing it) the address alone."""
        return self.gap or (self.address, self.address)

    def message(self) -> str:
        return f"no range of dataset {self.info.dataset!r} contains {format_address(self.family, self.address)}"

    def details(self, ip: str | None = None) -> dict[str, Any]:
        """What a NOT_FOUND answer holds beside its ``error``; ``ip`` as the request wrote it (batch elements)."""
        out: dict[str, Any] = {
            "ip": format_address(self.family, self.address) if ip is None else ip,
            "dataset": self.info.dataset,
            "version": self.info.version,
        }
        if self.gap is not None:
            out["gap"] = stretch_body(self.family, self.address, self.gap)
        out.update(reserved_field(self.family, self.address))
        return out


def stretch_body(family: int, address: int, stretch: Stretch) -> dict[str, str]:
    """A stretch of addresses as answers show it: first, last, and the largest CIDR block around the address."""
    start, end = stretch
    return {
        "start": format_address(family, start),
        "end": format_address(family, end),
        "network": network(family, start, end, address),
    }


@dataclass(frozen=True, slots=True)
class Unknown:
    """A dataset of the list that is not loaded (or not readable): its element says so; the others answer."""

    name: str
    error: ServiceError


Outcome = Answer | Miss | Unknown


def _missed(outcome: Miss, ip: str | None) -> dict[str, Any]:
    details = {key: value for key, value in outcome.details(ip).items() if key != "reserved"}
    return {**details, "error": NotFound(outcome.message()).body()}


def element(outcome: Outcome, family: int, address: int, ip: str | None = None) -> dict[str, Any]:
    """One dataset's part of a combined answer: today's single-dataset answer, without ``reserved`` (top level)."""
    if isinstance(outcome, Answer):
        return {key: value for key, value in outcome.body().items() if key != "reserved"}
    if isinstance(outcome, Miss):
        return _missed(outcome, ip)
    shown = format_address(family, address) if ip is None else ip
    return {"ip": shown, "dataset": outcome.name, "error": outcome.error.body()}


def combined(family: int, address: int, outcomes: Sequence[Outcome], ip: str | None = None) -> dict[str, Any]:
    """``{"ip", "match", "reserved", "answers"}``: every dataset's answer, and the stretch where all hold.

    ``match`` is absent when no dataset of the list is known. A NOT_FOUND of a version built before gaps were
    stored narrows it to the address alone: still a stretch where the combined answer holds.
    """
    body: dict[str, Any] = {"ip": format_address(family, address) if ip is None else ip}
    stretches = [outcome.stretch for outcome in outcomes if not isinstance(outcome, Unknown)]
    if stretches:
        body["match"] = stretch_body(family, address, intersect(stretches))
    body.update(reserved_field(family, address))
    body["answers"] = [element(outcome, family, address, ip) for outcome in outcomes]
    return body


def overlay(
    family: int, address: int, outcomes: Sequence[Answer | Miss], ip: str | None = None
) -> dict[str, Any] | NotFound:
    """The answer of the first dataset that has a range for the address, its ``match`` narrowed by the gaps of
    the datasets before it; or, when none has, NOT_FOUND (with ``gap``, ``versions`` and ``reserved``).

    The found answer already names its dataset. The NOT_FOUND's ``gap`` is the intersection of every dataset's
    gap, absent when a version was built before gaps were stored.
    """
    before: list[Stretch] = []
    for outcome in outcomes:
        if isinstance(outcome, Answer):
            body = outcome.body()
            narrowed = intersect([outcome.stretch, *before])
            if narrowed != outcome.stretch:
                body["match"] = stretch_body(family, address, narrowed)
            return body
        before.append(outcome.stretch)
    return overlay_miss(family, address, [outcome for outcome in outcomes if isinstance(outcome, Miss)], ip)


def overlay_miss(family: int, address: int, misses: Sequence[Miss], ip: str | None = None) -> NotFound:
    shown = format_address(family, address)
    details: dict[str, Any] = {"ip": shown if ip is None else ip}
    if all(miss.gap is not None for miss in misses):
        details["gap"] = stretch_body(family, address, intersect([miss.stretch for miss in misses]))
    details["versions"] = [{"dataset": miss.info.dataset, "version": miss.info.version} for miss in misses]
    details.update(reserved_field(family, address))
    names = ", ".join(repr(miss.info.dataset) for miss in misses)
    return NotFound(f"no range of datasets {names} contains {shown}", **details)
