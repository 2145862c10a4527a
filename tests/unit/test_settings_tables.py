"""Every setting is declared once (``fencepost.declared``, read by ``fencepost.settings``): the dataclasses' defaults
are the tables' defaults, each variable is read with its type and bounds, and the stack writes exactly the tables'
variables (``tests/infra`` checks what it writes)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from fencepost.declared import CACHES, FETCH, LOADER, LOOKUP, TABLES, Setting, SettingsError
from fencepost.settings import (
    CacheLimits,
    FetchSettings,
    LoaderSettings,
    LookupSettings,
    TableSettings,
    TablesSettings,
)

STRUCTURE = {
    "table",
    "bucket",
    "control_queue_url",
    "data_queue_url",
    "export_queue",
    "tables_queue",
    "caches",
    "cors_origins",
    "limits",
    "delete_grace",
}
REQUIRED = {"TABLE_NAME": "t", "BUCKET_NAME": "b", "CONTROL_QUEUE_URL": "c", "DATA_QUEUE_URL": "d"}
OWNERS: list[tuple[type[Any], dict[str, Setting[Any]]]] = [
    (LookupSettings, LOOKUP),
    (CacheLimits, CACHES),
    (LoaderSettings, LOADER),
    (FetchSettings, FETCH),
    (TablesSettings, TABLES),
]


def _defaults(kind: type[Any]) -> dict[str, Any]:
    return {f.name: f.default for f in dataclasses.fields(kind) if f.name not in STRUCTURE}


@pytest.mark.parametrize(("kind", "table"), OWNERS, ids=lambda owner: getattr(owner, "__name__", "table"))
def test_each_dataclass_holds_exactly_its_tables_settings_with_their_defaults(
    kind: type[Any], table: dict[str, Setting[Any]]
) -> None:
    assert _defaults(kind) == {name: setting.default for name, setting in table.items()}


def test_no_two_settings_share_a_variable_or_a_context_key() -> None:
    settings = {id(s): s for table in (LOOKUP, CACHES, LOADER, FETCH, TABLES) for s in table.values()}.values()
    variables = [s.env for s in settings]
    keys = [s.context for s in settings if s.context]
    assert len(variables) == len(set(variables))
    assert len(keys) == len(set(keys))


TEXT_FORMS = {"TRUSTED_PROXIES": "hops=1"}  # text settings with a grammar: another value they take


def _other_value(setting: Setting[Any]) -> Any:
    """A value within bounds that is not the default."""
    if isinstance(setting.default, bool):
        return not setting.default
    if isinstance(setting.default, str):
        return TEXT_FORMS.get(setting.env, setting.default + "x")
    assert setting.low is not None
    assert setting.high is not None
    middle = (setting.low + setting.high) / 2
    value = type(setting.default)(middle)
    return value if value != setting.default else type(setting.default)(setting.high)


def _env_of(table: dict[str, Setting[Any]], values: dict[str, Any]) -> dict[str, str]:
    return {table[name].env: table[name].text(value) for name, value in values.items()}


def test_the_functions_read_every_variable_of_their_tables() -> None:
    lookup = {name: _other_value(s) for name, s in LOOKUP.items()}
    caches = {name: _other_value(s) for name, s in CACHES.items()}
    loader = {name: _other_value(s) for name, s in LOADER.items()}

    read = LookupSettings.from_env({**REQUIRED, **_env_of(LOOKUP, lookup), **_env_of(CACHES, caches)})
    assert {name: getattr(read, name) for name in LOOKUP} == lookup
    assert dataclasses.asdict(read.caches) == caches
    assert read.table == TableSettings("t")
    written = LoaderSettings.from_env({**REQUIRED, **_env_of(LOADER, loader)})
    assert {name: getattr(written, name) for name in LOADER} == loader
    fetch = {name: _other_value(s) for name, s in FETCH.items()}
    fetched = FetchSettings.from_env({**REQUIRED, **_env_of(FETCH, fetch), "MAX_OBJECT_BYTES": "2048"})
    assert {name: getattr(fetched, name) for name in FETCH} == fetch
    assert fetched.limits.max_object_bytes == 2048


BOUNDED = {name: s for name, s in {**LOOKUP, **CACHES}.items() if not isinstance(s.default, str)}


@pytest.mark.parametrize("name", sorted(BOUNDED))
def test_a_lookup_variable_out_of_its_bounds_is_refused_by_name(name: str) -> None:
    setting = BOUNDED[name]
    bad = "maybe" if setting.high is None else str(setting.high * 2 + 1)  # not a boolean; above the bound
    with pytest.raises(SettingsError, match=setting.env):
        LookupSettings.from_env({**REQUIRED, setting.env: bad})


def test_trusted_proxies_it_cannot_read_are_refused_at_start() -> None:
    with pytest.raises(SettingsError, match=r"TRUSTED_PROXIES: .*hops=N"):
        LookupSettings.from_env({**REQUIRED, "TRUSTED_PROXIES": "all"})
    with pytest.raises(SettingsError, match=r"TRUSTED_PROXIES: hops must be .* 1 to 5"):
        LookupSettings.from_env({**REQUIRED, "TRUSTED_PROXIES": "hops=9", "FORWARDED_MAX_ENTRIES": "5"})


def test_the_default_dataset_must_be_a_dataset_name() -> None:
    with pytest.raises(SettingsError, match="DEFAULT_DATASET"):
        LookupSettings.from_env({**REQUIRED, "DEFAULT_DATASET": "../etc"})


def test_the_delete_grace_follows_the_cache_ttl_unless_set() -> None:
    assert LoaderSettings.from_env({**REQUIRED, "CACHE_TTL_SECONDS": "30"}).delete_grace == 30 + 15 * 60
    assert LoaderSettings.from_env({**REQUIRED, "DELETE_GRACE_SECONDS": "3"}).delete_grace == 3.0
