"""The functions' settings read into typed values, once per cold start (nothing else reads ``os.environ``): one
dataclass per function, each field beside its entry in the tables of ``fencepost.declared`` (a test checks that the
two agree)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fencepost.core.folders.limits import BOUNDS, ENVIRONMENT, Limits
from fencepost.core.space.forwarded import Trust, parse_trust
from fencepost.core.storage.keys import DATASET_NAME_RULE, is_dataset_name
from fencepost.declared import (
    CACHE_TTL,
    CACHES,
    DELETE_GRACE,
    DELETE_MARGIN,
    FETCH,
    LOADER,
    LOOKUP,
    TABLES,
    Setting,
    SettingsError,
)


def _required(env: Mapping[str, str], name: str, what: str) -> str:
    value = env.get(name, "").strip()
    if not value:
        raise SettingsError(f"{name} is not set: it names {what}")
    return value


def _read(table: Mapping[str, Setting[Any]], env: Mapping[str, str]) -> dict[str, Any]:
    return {name: setting.read(env) for name, setting in table.items()}


@dataclass(frozen=True, slots=True)
class TableSettings:
    """Where the table is. (Local endpoints come from boto3's own AWS_ENDPOINT_URL_DYNAMODB.)"""

    table_name: str

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> TableSettings:
        return cls(_required(env, "TABLE_NAME", "the DynamoDB table that holds the ranges"))


@dataclass(frozen=True, slots=True)
class CacheLimits:
    """How much a lookup container keeps (``CACHES``). With the defaults, up to 128 datasets in use are answered with
    one Query per warm lookup; a flood of unknown names keeps at most ``live_entries`` negative entries (about 300
    bytes each) and never evicts a known dataset."""

    live_entries: int = CACHES["live_entries"].default
    negative_ttl: float = CACHES["negative_ttl"].default
    version_entries: int = CACHES["version_entries"].default
    version_bytes: int = CACHES["version_bytes"].default
    range_bytes: int = CACHES["range_bytes"].default
    index_bytes: int = CACHES["index_bytes"].default
    keyed_bytes: int = CACHES["keyed_bytes"].default

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> CacheLimits:
        return cls(**_read(CACHES, env))


@dataclass(frozen=True, slots=True)
class LookupSettings:
    """The lookup function's settings (``LOOKUP``, ``CACHES``), plus where its table and bucket are."""

    table: TableSettings
    default_dataset: str = LOOKUP["default_dataset"].default
    cache_ttl: float = LOOKUP["cache_ttl"].default
    max_age: int = LOOKUP["max_age"].default
    max_batch: int = LOOKUP["max_batch"].default
    batch_concurrency: int = LOOKUP["batch_concurrency"].default
    log_addresses: bool = LOOKUP["log_addresses"].default
    tracing: bool = LOOKUP["tracing"].default
    read_timeout: float = LOOKUP["read_timeout"].default
    response_budget: int = LOOKUP["response_budget"].default
    metrics_interval: float = LOOKUP["metrics_interval"].default
    mmdb_export_ranges: int = LOOKUP["mmdb_export_ranges"].default
    diff_scan: int = LOOKUP["diff_scan"].default
    trusted_proxies: str = LOOKUP["trusted_proxies"].default
    forwarded_entries: int = LOOKUP["forwarded_entries"].default
    caches: CacheLimits = CacheLimits()
    cors_origins: tuple[str, ...] = ("*",)  # origins a browser may call from (CORS_ORIGINS, comma separated)
    bucket: str | None = None  # where builds keep what diffs, reverse lookups and exports read (BUCKET_NAME)
    export_queue: str | None = None  # where exports are asked for: the loader's data queue (EXPORT_QUEUE_URL)
    tables_queue: str | None = None  # where Parquet exports are asked for: the tables function's (TABLES_QUEUE_URL)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LookupSettings:
        env = os.environ if env is None else env
        values = _read(LOOKUP, env)
        if not is_dataset_name(values["default_dataset"]):
            raise SettingsError(
                f"DEFAULT_DATASET {values['default_dataset']!r} is not a valid name: {DATASET_NAME_RULE}"
            )
        trusted_proxies(values["trusted_proxies"], values["forwarded_entries"])
        return cls(
            table=TableSettings.from_env(env),
            caches=CacheLimits.from_env(env),
            cors_origins=origins(env.get("CORS_ORIGINS", "")),
            bucket=env.get("BUCKET_NAME", "").strip() or None,
            export_queue=env.get("EXPORT_QUEUE_URL", "").strip() or None,
            tables_queue=env.get("TABLES_QUEUE_URL", "").strip() or None,
            **values,
        )


def trusted_proxies(text: str, entries: int, name: str = "TRUSTED_PROXIES") -> Trust:
    """The proxies ``ip=me`` looks through (``TRUSTED_PROXIES``, and the deploy's ``trustedProxies``), or
    ``SettingsError`` naming the forms the setting takes."""
    try:
        return parse_trust(text, entries)
    except ValueError as error:
        raise SettingsError(f"{name}: {error}") from None


def origins(raw: str, name: str = "CORS_ORIGINS") -> tuple[str, ...]:
    """Comma-separated origins (``CORS_ORIGINS``, and the deploy's ``corsOrigins``): ``*`` when empty; a list of
    commas alone names none, and is refused."""
    if not raw.strip():
        return ("*",)
    named = tuple(origin.strip() for origin in raw.split(",") if origin.strip())
    if not named:
        raise SettingsError(f"{name} must name at least one origin (comma separated) or '*'")
    return named


@dataclass(frozen=True, slots=True)
class LoaderSettings:
    """The loader function's settings (``LOADER``, ``DELETE_GRACE``, the limits), its table, bucket and queues."""

    table: TableSettings
    bucket: str
    control_queue_url: str
    data_queue_url: str
    cache_ttl: float = LOADER["cache_ttl"].default
    settle_seconds: int = LOADER["settle_seconds"].default
    chunk_items: int = LOADER["chunk_items"].default
    write_threads: int = LOADER["write_threads"].default
    write_rate: float = LOADER["write_rate"].default
    write_pacing: bool = LOADER["write_pacing"].default
    max_receives: int = LOADER["max_receives"].default
    deadline_margin: float = LOADER["deadline_margin"].default
    retry_base: float = LOADER["retry_base"].default
    stall_seconds: int = LOADER["stall_seconds"].default
    writer_timeout: float = LOADER["writer_timeout"].default
    tracing: bool = LOADER["tracing"].default
    part_bytes: int = LOADER["part_bytes"].default
    max_parts: int = LOADER["max_parts"].default
    parts_in_flight: int = LOADER["parts_in_flight"].default
    sink_prefix: str = LOADER["sink_prefix"].default
    events: bool = LOADER["events"].default
    events_source: str = LOADER["events_source"].default
    events_seconds: float = LOADER["events_seconds"].default
    caches: CacheLimits = field(default_factory=CacheLimits)  # KEYED_CACHE_BYTES as lookups': jobs join as they do
    delete_grace: float = CACHE_TTL.default + DELETE_MARGIN
    limits: Limits = field(default_factory=Limits)  # what one build may read, and how large its directory may be
    tables_queue: str | None = None  # the tables function's queue: each version going live (TABLES_QUEUE_URL)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LoaderSettings:
        env = os.environ if env is None else env
        values = _read(LOADER, env)
        grace = env.get(DELETE_GRACE.env, "").strip()
        return cls(
            table=TableSettings.from_env(env),
            bucket=_required(env, "BUCKET_NAME", "the bucket that holds the range files"),
            control_queue_url=_required(env, "CONTROL_QUEUE_URL", "the loader's queue for changes and builds"),
            data_queue_url=_required(env, "DATA_QUEUE_URL", "the loader's queue for chunk writes and deletions"),
            # Unless set (local runs), an old version goes no sooner than the TTL plus 15 minutes.
            delete_grace=DELETE_GRACE.parse(grace, DELETE_GRACE.env) if grace else values["cache_ttl"] + DELETE_MARGIN,
            limits=loader_limits(env),
            tables_queue=env.get("TABLES_QUEUE_URL", "").strip() or None,
            caches=CacheLimits.from_env(env),
            **values,
        )


@dataclass(frozen=True, slots=True)
class TablesSettings:
    """The tables function's settings (``TABLES``), its table and bucket."""

    table: TableSettings
    bucket: str
    glue_database: str = TABLES["glue_database"].default
    tracing: bool = TABLES["tracing"].default

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> TablesSettings:
        env = os.environ if env is None else env
        values = _read(TABLES, env)
        if not re.fullmatch(r"[a-z0-9_]{1,255}", values["glue_database"]):
            raise SettingsError(
                f"GLUE_DATABASE {values['glue_database'][:80]!r} is not a Glue name: lowercase letters, digits, _"
            )
        bucket = _required(env, "BUCKET_NAME", "the bucket that holds the range files")
        return cls(TableSettings.from_env(env), bucket, **values)


@dataclass(frozen=True, slots=True)
class FetchSettings:
    """The fetch function's settings (``FETCH``), its table and bucket, and the loader's limits it fetches within."""

    table: TableSettings
    bucket: str
    least_every: int = FETCH["least_every"].default
    https_only: bool = FETCH["https_only"].default
    allow_loopback: bool = FETCH["allow_loopback"].default
    timeout: float = FETCH["timeout"].default
    attempts: int = FETCH["attempts"].default
    max_wait: float = FETCH["max_wait"].default
    round_seconds: float = FETCH["round_seconds"].default
    check_seconds: float = FETCH["check_seconds"].default
    tracing: bool = FETCH["tracing"].default
    events: bool = FETCH["events"].default
    events_source: str = FETCH["events_source"].default
    events_seconds: float = FETCH["events_seconds"].default
    limits: Limits = field(default_factory=Limits)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> FetchSettings:
        env = os.environ if env is None else env
        bucket = _required(env, "BUCKET_NAME", "the bucket that holds the range files")
        return cls(TableSettings.from_env(env), bucket, limits=loader_limits(env), **_read(FETCH, env))


def loader_limits(env: Mapping[str, str]) -> Limits:
    """The loader's limits: ``MAX_LINE_BYTES``, ``MAX_OBJECT_BYTES``, ``MAX_BUILD_BYTES``, ``MAX_BUILD_ROWS``,
    ``MAX_DIRECTORY_PARTITIONS`` and ``MAX_COLUMNS`` (``fencepost.core.folders.limits``)."""
    default = Limits()
    limits = {name: Setting(variable, getattr(default, name), *BOUNDS[name]) for name, variable in ENVIRONMENT.items()}
    return Limits.of({name: setting.read(env) for name, setting in limits.items()})
