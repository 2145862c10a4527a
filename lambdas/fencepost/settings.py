"""Settings read once per cold start from the environment into typed objects; nothing else reads os.environ."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from fencepost.core.keys import DATASET_NAME_RULE, is_dataset_name
from fencepost.core.limits import BOUNDS, ENVIRONMENT, Limits
from fencepost.http.budget import DEFAULT_BUDGET_BYTES, MAX_BUDGET_BYTES, MIN_BUDGET_BYTES
from fencepost.reading.caches import MIB, CacheLimits

# The loader's shape, declared once for the stack, the function and the planner: the data queue's concurrent
# invocations (chunk writes and deletions; Lambda's minimum for an SQS event source is 2: ten give a pre-warmed
# table enough parallel writers and leave most of an account's default 1,000 concurrent executions to lookups), the
# BatchWriteItem calls each keeps in flight, and the items of a chunk message.
LOADER_CONCURRENCY: Final = 10
WRITE_THREADS: Final = 8
CHUNK_ITEMS: Final = 5000


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


def _required(env: Mapping[str, str], name: str, what: str) -> str:
    value = env.get(name, "").strip()
    if not value:
        raise SettingsError(f"{name} is not set: it names {what}")
    return value


@dataclass(frozen=True, slots=True)
class TableSettings:
    """Where the table is. (Local endpoints come from boto3's own AWS_ENDPOINT_URL_DYNAMODB.)"""

    table_name: str

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> TableSettings:
        return cls(_required(env, "TABLE_NAME", "the DynamoDB table that holds the ranges"))


CACHES = CacheLimits()  # the lookup's cache limits by default


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
    read_timeout: float = 2.0  # seconds: a slow table becomes a fast 503
    caches: CacheLimits = CACHES
    response_budget: int = DEFAULT_BUDGET_BYTES  # bytes an answer may take (see fencepost.http.budget)
    cors_origins: tuple[str, ...] = ("*",)  # origins a browser may call from (the preflight's answer)
    bucket: str | None = None  # where builds keep their changes (``GET /datasets/{name}/diff``)
    metrics_interval: float = 0.0  # seconds between metric lines (0: one per invocation; fencepost.observability)

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
            read_timeout=_float(env, "DYNAMODB_READ_TIMEOUT_SECONDS", 2.0, 0.1, 60.0),
            caches=CacheLimits(
                live_entries=_int(env, "LIVE_CACHE_ENTRIES", CACHES.live_entries, 1, 1_000_000),
                negative_ttl=_float(env, "NEGATIVE_CACHE_TTL_SECONDS", CACHES.negative_ttl, 0.0, 3600.0),
                version_entries=_int(env, "VERSION_CACHE_ENTRIES", CACHES.version_entries, 1, 100_000),
                version_bytes=_int(env, "VERSION_CACHE_BYTES", CACHES.version_bytes, MIB, 8 * 1024 * MIB),
                range_bytes=_int(env, "RANGE_CACHE_BYTES", CACHES.range_bytes, 0, 8 * 1024 * MIB),
            ),
            response_budget=_int(
                env, "RESPONSE_BUDGET_BYTES", DEFAULT_BUDGET_BYTES, MIN_BUDGET_BYTES, MAX_BUDGET_BYTES
            ),
            cors_origins=_origins(env.get("CORS_ORIGINS", "")),
            bucket=env.get("BUCKET_NAME", "").strip() or None,
            metrics_interval=_float(env, "METRICS_INTERVAL_SECONDS", 0.0, 0.0, 3600.0),
        )


def _origins(raw: str) -> tuple[str, ...]:
    origins = tuple(origin.strip() for origin in raw.split(",") if origin.strip())
    return origins or ("*",)


@dataclass(frozen=True, slots=True)
class LoaderSettings:
    table: TableSettings
    bucket: str
    control_queue_url: str
    data_queue_url: str
    cache_ttl: float = 60.0  # the lookups' TTL: an old version is deleted no sooner than this plus 15 minutes
    settle_seconds: int = 10  # a burst of changes to a folder within this many seconds makes one build
    chunk_items: int = CHUNK_ITEMS
    write_threads: int = WRITE_THREADS
    write_rate: float = 0.0  # items per second per invocation; 0 is unlimited
    write_pacing: bool = True  # the writer paces itself (fencepost.core.pacing); off: as before, for comparison
    max_receives: int = 5  # the queue's maxReceiveCount: the last delivery of a failing chunk fails the load
    deadline_margin: float = 20.0  # seconds kept back from the invocation's time limit
    retry_base: float = 5.0  # a handed-back message returns after retry_base * 2**(deliveries - 1) seconds
    stall_seconds: int = 1800  # a load without progress for this long is failed by the sweep
    delete_grace: float = 60.0 + 15 * 60  # an old version is deleted this long after it stopped being live
    writer_timeout: float = 900.0  # the function's timeout: an abandoned build is deleted this long after
    limits: Limits = field(default_factory=Limits)  # what one build may read, and how large its directory may be
    tracing: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LoaderSettings:
        env = os.environ if env is None else env
        cache_ttl = _float(env, "CACHE_TTL_SECONDS", 60.0, 0.0, 3600.0)
        return cls(
            table=TableSettings.from_env(env),
            bucket=_required(env, "BUCKET_NAME", "the bucket that holds the range files"),
            control_queue_url=_required(env, "CONTROL_QUEUE_URL", "the loader's queue for changes and builds"),
            data_queue_url=_required(env, "DATA_QUEUE_URL", "the loader's queue for chunk writes and deletions"),
            cache_ttl=cache_ttl,
            settle_seconds=_int(env, "SETTLE_SECONDS", 10, 0, 900),
            chunk_items=_int(env, "CHUNK_ITEMS", CHUNK_ITEMS, 1, 100_000),
            write_threads=_int(env, "WRITE_THREADS", WRITE_THREADS, 1, 64),
            write_rate=_float(env, "WRITE_RATE", 0.0, 0.0, 1_000_000.0),
            write_pacing=_bool(env, "WRITE_PACING", True),
            max_receives=_int(env, "MAX_RECEIVES", 5, 1, 1000),
            deadline_margin=_float(env, "DEADLINE_MARGIN_SECONDS", 20.0, 0.0, 600.0),
            retry_base=_float(env, "RETRY_BASE_SECONDS", 5.0, 0.0, 300.0),
            stall_seconds=_int(env, "STALL_SECONDS", 1800, 1, 86_400),
            # No warm lookup may still read a version it cached: the TTL plus 15 minutes, unless set (local runs).
            delete_grace=_float(env, "DELETE_GRACE_SECONDS", cache_ttl + 15 * 60, 0.0, 86_400.0),
            # A chunk writer that began before its build was abandoned may write until its invocation ends: at
            # most the function's timeout, 15 minutes (Lambda's maximum) unless set lower.
            writer_timeout=_float(env, "WRITER_TIMEOUT_SECONDS", 900.0, 0.0, 900.0),
            limits=_loader_limits(env),
            tracing=_bool(env, "TRACING", False),
        )


def _loader_limits(env: Mapping[str, str]) -> Limits:
    """The loader's limits: ``MAX_LINE_BYTES``, ``MAX_OBJECT_BYTES``, ``MAX_BUILD_BYTES``, ``MAX_BUILD_ROWS``,
    ``MAX_DIRECTORY_PARTITIONS`` and ``MAX_COLUMNS`` (``fencepost.core.limits``)."""
    default = Limits()
    return Limits.of(
        {name: _int(env, variable, getattr(default, name), *BOUNDS[name]) for name, variable in ENVIRONMENT.items()}
    )
