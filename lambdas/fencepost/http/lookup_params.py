"""Which datasets a lookup request names, and how their answers combine (``mode``): ``dataset=geo,asn`` (or
``"datasets"`` in ``POST /lookup``) names 2 to ``MAX_DATASETS``; how the answers combine is
``fencepost.reading.answers``."""

from __future__ import annotations

from collections.abc import Sequence

from fencepost.errors import InvalidRequest
from fencepost.reading.answers import Mode

MAX_DATASETS = 5  # datasets in one lookup
MAX_LOOKUPS = 500  # addresses times datasets in one request


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
