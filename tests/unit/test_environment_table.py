"""docs/development.md's table of the functions' environment agrees with what they read: every declared variable
(``fencepost.declared``, and the loader's limits of ``fencepost.core.folders.limits``) has a row, every row names a
variable the functions read, and a default shown as plain values is the declared one."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from fencepost.core.folders.limits import ENVIRONMENT, Limits
from fencepost.declared import CACHE_TTL, CACHES, DELETE_GRACE, FETCH, LOADER, LOOKUP, TRACING, Setting
from tests.support import ROOT

# What the stack wires in (names of its resources), and what ``fencepost.settings`` reads outside the tables
WIRING = {"TABLE_NAME", "BUCKET_NAME", "CONTROL_QUEUE_URL", "DATA_QUEUE_URL", "EXPORT_QUEUE_URL", "METRICS_FILE"}
WIRING |= {"CORS_ORIGINS"}
ROW = re.compile(r"^\| ((?:`[A-Z0-9_]+`(?:, )?)+) \| [a-z]+ \| ([^|]*) \|", re.M)


def _declared() -> dict[str, object]:
    settings: list[Setting[Any]] = [CACHE_TTL, TRACING, DELETE_GRACE]
    for table in (LOOKUP, CACHES, LOADER, FETCH):
        settings += table.values()
    declared: dict[str, object] = {setting.env: setting.default for setting in settings}
    limits = Limits()
    declared |= {variable: getattr(limits, name) for name, variable in ENVIRONMENT.items()}
    return declared


def _rows() -> list[tuple[list[str], str]]:
    text = (ROOT / "docs" / "development.md").read_text()
    return [(re.findall(r"`([A-Z0-9_]+)`", names), default.strip()) for names, default in ROW.findall(text)]


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def test_every_variable_the_functions_read_has_a_row_and_every_row_one_they_read() -> None:
    declared = _declared()
    named = {name for names, _ in _rows() for name in names}
    assert sorted(set(declared) - named) == []
    assert sorted(named - set(declared) - WIRING) == []


def test_a_default_shown_as_plain_values_is_the_declared_default() -> None:
    declared, compared = _declared(), 0
    for names, default in _rows():
        values = [value.strip() for value in default.split(",")]
        plain = len(values) == len(names) and all(re.fullmatch(r"-?[\d.]+|true|false", v) for v in values)
        if not plain or not all(name in declared for name in names):
            continue
        assert values == [_shown(declared[name]) for name in names], names
        compared += 1
    assert compared >= 20  # most rows are compared
    assert dataclasses.is_dataclass(Limits)
