"""Which datasets a lookup request names, and how their answers combine (``mode``): ``dataset=geo,asn`` (or
``"datasets"`` in ``POST /lookup``) names 2 to ``MAX_DATASETS``; how the answers combine is
``fencepost.reading.answers``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from fencepost.core.history import InstantError, format_instant, parse_instant
from fencepost.errors import InvalidRequest

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
class Past:
    """A lookup in the past: at an instant (``as_of``, kept as the answer shows it) or of one version."""

    instant: float | None = None
    shown: str | None = None  # the instant in RFC 3339, UTC, as answers carry it under ``as_of``
    version: int | None = None


def parse_past(as_of: object, version: object, *, several: bool, now: float) -> Past | None:
    """``as_of=<RFC 3339 instant>`` or ``version=<N>`` (not both; a version only with one dataset); None for
    neither: the live version answers."""
    if as_of is None and version is None:
        return None
    if as_of is not None and version is not None:
        raise InvalidRequest("give as_of (an instant) or version (a number), not both")
    if version is not None:
        if several:
            raise InvalidRequest("version names one dataset's version: use as_of with several datasets")
        text = str(version) if isinstance(version, int) and not isinstance(version, bool) else version
        if not isinstance(text, str) or not text.isdigit() or len(text) > 12 or int(text) < 1:
            raise InvalidRequest(f"version is a whole number, 1 or more, not {str(version)[:40]!r}")
        return Past(version=int(text))
    if not isinstance(as_of, str):
        raise InvalidRequest("as_of is an RFC 3339 date-time such as 2026-11-01T12:00:00Z")
    try:
        instant = parse_instant(as_of, now)
    except InstantError as error:
        raise InvalidRequest(str(error)) from None
    return Past(instant, format_instant(instant))
