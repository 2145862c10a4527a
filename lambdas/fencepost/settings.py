"""Settings read once per cold start from the environment into typed objects; nothing else reads os.environ."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from fencepost.core.keys import DATASET_NAME_RULE, is_dataset_name


class SettingsError(ValueError):
    pass


def _int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a whole number, not {raw!r}") from None
    if not low <= value <= high:
        raise SettingsError(f"{name} must be between {low} and {high}, not {value}")
    return value


def _float(env: Mapping[str, str], name: str, default: float, low: float, high: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number, not {raw!r}") from None
    if not low <= value <= high:
        raise SettingsError(f"{name} must be between {low} and {high}, not {value}")
    return value


def _bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "on", "yes"):
        return True
    if raw in ("0", "false", "off", "no"):
        return False
    raise SettingsError(f"{name} must be true or false, not {raw!r}")


@dataclass(frozen=True, slots=True)
class TableSettings:
    """Where the table is; the endpoint is set only for DynamoDB Local."""

    table_name: str
    endpoint_url: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> TableSettings:
        table = env.get("TABLE_NAME", "").strip()
        if not table:
            raise SettingsError("TABLE_NAME is not set: it names the DynamoDB table that holds the ranges")
        return cls(table, env.get("DYNAMODB_ENDPOINT_URL", "").strip() or None)


@dataclass(frozen=True, slots=True)
class LookupSettings:
    table: TableSettings
    default_dataset: str = "default"
    cache_ttl: float = 60.0
    max_age: int = 300
    max_batch: int = 100
    batch_concurrency: int = 16
    log_addresses: bool = True
    tracing: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LookupSettings:
        env = os.environ if env is None else env
        default_dataset = env.get("DEFAULT_DATASET", "").strip() or "default"
        if not is_dataset_name(default_dataset):
            raise SettingsError(f"DEFAULT_DATASET {default_dataset!r} is not a valid name: {DATASET_NAME_RULE}")
        return cls(
            table=TableSettings.from_env(env),
            default_dataset=default_dataset,
            cache_ttl=_float(env, "CACHE_TTL_SECONDS", 60.0, 0.0, 3600.0),
            max_age=_int(env, "CACHE_MAX_AGE_SECONDS", 300, 0, 31_536_000),
            max_batch=_int(env, "MAX_BATCH", 100, 1, 1000),
            batch_concurrency=_int(env, "BATCH_CONCURRENCY", 16, 1, 64),
            log_addresses=_bool(env, "LOG_ADDRESSES", True),
            tracing=_bool(env, "TRACING", False),
        )
