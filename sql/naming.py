"""Dataset names as SQL names a user types unquoted: lower case, each character outside ``[a-z0-9_]`` as ``_``, ``ds_``
before a name that starts with a digit or is one of DuckDB's reserved keywords (``select``, ``order``, ``table``...),
and ``_2``, ``_3``... after a name another dataset (or another's ``_versions`` or ``_history``) already took."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

SUFFIXES: Final = ("", "_versions", "_history")  # the relations each dataset gets
RESERVED: Final = frozenset({"fp_enrich", "fp_enrich_as_of"})  # the session's own table macros
_UNSAFE = re.compile(r"[^a-z0-9_]")


def safe_name(dataset: str, keywords: Iterable[str] = ()) -> str:
    """``dataset`` as a plain SQL name (before any ``_2`` that a clash adds)."""
    name = _UNSAFE.sub("_", dataset.lower())
    if not name or name[0].isdigit() or name in {word.lower() for word in keywords}:
        name = "ds_" + name
    return name


def sql_names(datasets: Sequence[str], keywords: Iterable[str] = ()) -> dict[str, str]:
    """Each dataset's SQL name, distinct with all its relations' names (in the order given: the first keeps its)."""
    words = {word.lower() for word in keywords}
    taken: set[str] = set(RESERVED)
    names: dict[str, str] = {}
    for dataset in datasets:
        base = safe_name(dataset, words)
        name, count = base, 1
        while any(name + suffix in taken for suffix in SUFFIXES):
            count += 1
            name = f"{base}_{count}"
        taken.update(name + suffix for suffix in SUFFIXES)
        names[dataset] = name
    return names
