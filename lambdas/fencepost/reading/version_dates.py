"""A version's dates in a lookup's answer, only when ``fields=`` names them (``ON_REQUEST``): ``built_at`` (when the
version that answered was built) and ``data_date`` (its data's own date, ``fencepost.core.versions.data_dates``).

Both come from the version's header, which a lookup has already read (``VersionInfo``), so asking for them costs no
read; a lookup in the past (``as_of``, ``version``) reports the dates of the version that answered. Each part of an
answer that names a dataset and a version (a found range, a NOT_FOUND, each of a several-dataset answer's
``answers``) gets them; a default answer never does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from fencepost.model import VersionInfo
from fencepost.reading.answers import ON_REQUEST
from fencepost.reading.fields import Selection


def dates_of(info: VersionInfo) -> dict[str, Any]:
    """The version's dates as answers show them: ``built_at`` (null when not known) and ``data_date``."""
    return {
        "built_at": info.created_at or None,
        "data_date": None if info.data_date is None else asdict(info.data_date),
    }


def add_dates(answer: dict[str, Any], versions: Sequence[object], selection: Selection | None) -> dict[str, Any]:
    """``answer`` (changed in place, and returned) with the dates ``selection`` names, of the version each part
    answered from (one of ``versions``, the request's pinned versions)."""
    wanted = [name for name in ON_REQUEST if selection is not None and name in selection.paths]
    if not wanted:
        return answer
    known = {(info.dataset, info.version): info for info in versions if isinstance(info, VersionInfo)}
    for part in (answer, *answer.get("answers", ())):
        info = known.get((part.get("dataset"), part.get("version")))
        if info is not None:
            dates = dates_of(info)
            part.update((name, dates[name]) for name in wanted)
    return answer
