"""Several datasets in one lookup: which ones a request names, and how their answers combine.

``dataset=geo,asn,blocklist`` answers every dataset, in request order, under ``answers``; the top-level ``match``
is the intersection of every known dataset's ``match`` or ``gap``: the stretch in which the whole combined answer
is the same. ``mode=first`` makes an overlay instead: the first dataset with a range for the address answers, its
``match`` narrowed by the gaps of the datasets before it. Everything here is pure: the answers come in already
looked up (``fencepost.reading.lookup``), one per dataset, from versions pinned for the whole request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from fencepost.core.addresses import format_address
from fencepost.core.gaps import Stretch, intersect
from fencepost.core.reserved import reserved_field
from fencepost.errors import InvalidRequest, NotFound, ServiceError
from fencepost.reading.lookup import Answer, Miss, stretch_body

MAX_DATASETS = 5  # datasets in one lookup
MAX_LOOKUPS = 500  # addresses times datasets in one request


class Mode(StrEnum):
    ALL = "all"  # every dataset's answer, under ``answers``
    FIRST = "first"  # an overlay: the first dataset with a range answers


def parse_mode(value: object) -> Mode:
    if value is None:
        return Mode.ALL
    if value not in (Mode.ALL, Mode.FIRST):
        shown = repr(value)[:40]
        raise InvalidRequest(f"mode is 'all' (every dataset's answer) or 'first' (an overlay), not {shown}")
    return Mode(str(value))


def dataset_list(names: Sequence[object], *, least: int = 1) -> tuple[str, ...]:
    """The names of a several-dataset lookup: ``least`` to ``MAX_DATASETS`` distinct, non-empty strings."""
    if not least <= len(names) <= MAX_DATASETS:
        raise InvalidRequest(f"a lookup names {least} to {MAX_DATASETS} datasets, not {len(names)}")
    if not all(isinstance(name, str) and name for name in names):
        raise InvalidRequest("each dataset of the list is a non-empty name")
    if len(set(names)) != len(names):
        raise InvalidRequest("a dataset is named twice in the list: name each once")
    return tuple(str(name) for name in names)


def parse_dataset_text(text: str) -> tuple[str, ...] | None:
    """The names of ``dataset=a,b,c`` (2 to 5); None for a single name (today's single-dataset answer)."""
    if "," not in text:
        return None
    return dataset_list(text.split(","), least=2)


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
