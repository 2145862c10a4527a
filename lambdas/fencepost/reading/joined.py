"""What one keyed join added to an answer (``core.keyed.join_spec``): the columns under their names in ``data``, and
under ``joined`` which keyed version they were read from, with which key. Pure: the keyed version is read (once per
request) by ``fencepost.reading.joining``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fencepost.core.keyed.join_spec import KeyedJoin


@dataclass(frozen=True, slots=True)
class JoinedPart:
    """One join of one answer. ``version`` is the keyed version read (None when none could be: ``error`` says why);
    ``key`` the answer's value as a key (None when it is no key); ``values`` the row's, in ``join.columns`` order (None
    when the version has no row for the key)."""

    join: KeyedJoin
    version: int | None
    key: str | None
    values: tuple[str | None, ...] | None = None
    error: dict[str, Any] | None = None

    def data(self) -> dict[str, str | None]:
        """The added columns by their names in the answer: null where there is no row."""
        values = self.values or (None,) * len(self.join.columns)
        return dict(zip(self.join.names, values, strict=True))

    def body(self) -> dict[str, Any]:
        """This join under the answer's ``joined``."""
        out: dict[str, Any] = {"dataset": self.join.dataset, "version": self.version, "on": self.join.on}
        out["key"] = self.key
        out["found"] = self.values is not None
        if self.error is not None:
            out["error"] = self.error
        return out
