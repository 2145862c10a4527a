"""Every setting of the functions, declared once: its environment variable, default, bounds and meaning, and the
CDK context key that sets it at deploy when it is a deployment choice.

The functions read them once per cold start (nothing else reads ``os.environ``); ``infra/`` reads the same tables to
check ``-c key=value`` and to write each function's environment. A new setting is one entry here and one field of
the dataclass beside its table (a test checks that the two agree). The loader's limits, which a folder may also
lower, are declared the same way in ``fencepost.core.folders.limits``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from fencepost.core.folders.limits import BOUNDS, ENVIRONMENT, Limits
from fencepost.core.storage.keys import DATASET_NAME_RULE, is_dataset_name
from fencepost.declared import Setting, SettingsError

MIB: Final = 1024 * 1024


# Shared by both functions: the loader waits this long after a switch before an old version may go.
CACHE_TTL: Final = Setting(
    "CACHE_TTL_SECONDS", 60.0, 0.0, 3600.0, "seconds a container caches a dataset's live version"
)
TRACING: Final = Setting("TRACING", False, doc="X-Ray tracing (costs ~100 ms of cold start)", context="tracing")

LOOKUP: Final[dict[str, Setting[Any]]] = {
    "default_dataset": Setting("DEFAULT_DATASET", "default", doc="the dataset a lookup without dataset= reads"),
    "cache_ttl": CACHE_TTL,
    "max_age": Setting("CACHE_MAX_AGE_SECONDS", 300, 0, 31_536_000, "Cache-Control max-age of a lookup's answer"),
    "max_batch": Setting("MAX_BATCH", 100, 1, 1000, "addresses one POST /lookup may ask"),
    "batch_concurrency": Setting("BATCH_CONCURRENCY", 16, 1, 64, "Queries one request runs at once"),
    "log_addresses": Setting(
        "LOG_ADDRESSES", False, doc="log looked-up and callers' addresses (personal data)", context="logAddresses"
    ),
    "tracing": TRACING,
    "read_timeout": Setting("DYNAMODB_READ_TIMEOUT_SECONDS", 2.0, 0.1, 60.0, "a slow table becomes a fast 503"),
    "response_budget": Setting(
        "RESPONSE_BUDGET_BYTES",
        4_500_000,
        1_000_000,  # room for a full batch of brief answers to the largest request body (64 KB)
        6_000_000,  # Lambda's 6,291,556 bytes, less the response's own envelope and headers
        "bytes an answer may take (fencepost.http.budget)",
        context="responseBudgetBytes",
    ),
    "metrics_interval": Setting(
        "METRICS_INTERVAL_SECONDS",
        0.0,
        0.0,
        3600.0,
        "seconds between metric lines (0: one per invocation)",
        deployed=60.0,
    ),
    "mmdb_export_ranges": Setting(
        "MMDB_EXPORT_MAX_RANGES", 500_000, 0, 5_000_000, "ranges a MaxMind DB export may hold"
    ),
    "diff_scan": Setting(
        "DIFF_SCAN_PIECES",
        100_000,  # about 0.5 s of a page on 2 cores (docs/performance.md), 2 s on the lookup's share of a core
        1_000,
        300_000,  # inside the lookup function's 10 s timeout, with its 512 MB's share of a core
        "unchanged stretches one page of a diff between two versions may walk",
    ),
}

CACHES: Final[dict[str, Setting[Any]]] = {
    "live_entries": Setting(
        "LIVE_CACHE_ENTRIES",
        1024,
        1,
        1_000_000,
        "live pointers kept; as many again for unknown names",
        "liveCacheEntries",
    ),
    "negative_ttl": Setting(
        "NEGATIVE_CACHE_TTL_SECONDS",
        5.0,
        0.0,
        3600.0,
        "seconds an unknown name is answered from cache",
        "negativeCacheTtl",
    ),
    "version_entries": Setting(
        "VERSION_CACHE_ENTRIES", 128, 1, 100_000, "versions (columns and directory) kept", "versionCacheEntries"
    ),
    "version_bytes": Setting(
        "VERSION_CACHE_BYTES", 64 * MIB, MIB, 8 * 1024 * MIB, "their estimated size, together", "versionCacheBytes"
    ),
    "range_bytes": Setting(
        "RANGE_CACHE_BYTES", 128 * MIB, 0, 8 * 1024 * MIB, "answered stretches kept; 0 turns it off", "rangeCacheBytes"
    ),
    # 64 MB: about 300,000 distinct values of indexed columns (reading.caches.index_bytes)
    "index_bytes": Setting("INDEX_CACHE_BYTES", 64 * MIB, MIB, 8 * 1024 * MIB, "value indexes kept", "indexCacheBytes"),
}

LOADER: Final[dict[str, Setting[Any]]] = {
    "cache_ttl": CACHE_TTL,
    "settle_seconds": Setting("SETTLE_SECONDS", 10, 0, 900, "changes to a folder within this long make one build"),
    "chunk_items": Setting("CHUNK_ITEMS", 5000, 1, 100_000, "items of a chunk message"),
    "write_threads": Setting("WRITE_THREADS", 8, 1, 64, "BatchWriteItem calls each invocation keeps in flight"),
    "write_rate": Setting(
        "WRITE_RATE", 0.0, 0.0, 1_000_000.0, "items a second per invocation at most; 0: no ceiling", "writeRate"
    ),
    "write_pacing": Setting("WRITE_PACING", True, doc="pace writes to what the table takes (aws.dynamo.pacing)"),
    "max_receives": Setting("MAX_RECEIVES", 5, 1, 1000, "the queue's maxReceiveCount: a chunk's last delivery"),
    "deadline_margin": Setting("DEADLINE_MARGIN_SECONDS", 20.0, 0.0, 600.0, "seconds kept back from the time limit"),
    "retry_base": Setting("RETRY_BASE_SECONDS", 5.0, 0.0, 300.0, "a handed-back message returns after base x 2^n s"),
    "stall_seconds": Setting("STALL_SECONDS", 1800, 1, 86_400, "a load without progress this long is failed"),
    "writer_timeout": Setting(
        "WRITER_TIMEOUT_SECONDS", 900.0, 0.0, 900.0, "an abandoned build's writers may write this long (the timeout)"
    ),
    "tracing": TRACING,
}

FETCH: Final[dict[str, Setting[Any]]] = {
    "least_every": Setting("SOURCE_MIN_EVERY_SECONDS", 300, 1, 86_400, "the shortest interval a source may ask"),
    "https_only": Setting("SOURCE_HTTPS_ONLY", True, doc="fetch https addresses only, and follow redirects to https"),
    # Publishers on this machine (make run's, the tests'): never on AWS, where loopback is the Lambda runtime API.
    "allow_loopback": Setting("SOURCE_ALLOW_LOOPBACK", False, doc="sources may point to loopback addresses"),
    "timeout": Setting("FETCH_TIMEOUT_SECONDS", 30.0, 1.0, 300.0, "seconds to connect, and between two reads"),
    "attempts": Setting("FETCH_ATTEMPTS", 4, 1, 10, "tries of a download that fails with a 5xx, a 429 or no answer"),
    "max_wait": Setting("FETCH_MAX_WAIT_SECONDS", 120.0, 0.0, 600.0, "the longest Retry-After a check waits"),
    # A round starts every 5 minutes: it stops starting checks, and its downloads stop, before the next one starts.
    "round_seconds": Setting("FETCH_ROUND_SECONDS", 240.0, 10.0, 840.0, "seconds a scheduled round may take"),
    # Half a round: a source that takes all its time (a publisher that trickles, an archive bomb) leaves the other
    # half to the sources after it, which the next round checks first anyway.
    "check_seconds": Setting("FETCH_CHECK_SECONDS", 120.0, 1.0, 840.0, "seconds one check may take"),
    "tracing": TRACING,
}

# No warm lookup may still read a version it cached: an old version goes the TTL plus this long after its switch.
DELETE_GRACE: Final = Setting("DELETE_GRACE_SECONDS", 0.0, 0.0, 86_400.0, "seconds after a switch an old version goes")
DELETE_MARGIN: Final = 15 * 60.0

# The loader's shape, declared once for the stack, the function and the planner: the data queue's concurrent
# invocations (chunk writes and deletions; Lambda's minimum for an SQS event source is 2: ten give a pre-warmed
# table enough parallel writers and leave most of an account's default 1,000 concurrent executions to lookups).
LOADER_CONCURRENCY: Final = 10
WRITE_THREADS: Final[int] = LOADER["write_threads"].default
CHUNK_ITEMS: Final[int] = LOADER["chunk_items"].default


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
    caches: CacheLimits = CacheLimits()
    cors_origins: tuple[str, ...] = ("*",)  # origins a browser may call from (CORS_ORIGINS, comma separated)
    bucket: str | None = None  # where builds keep what diffs, reverse lookups and exports read (BUCKET_NAME)
    export_queue: str | None = None  # where exports are asked for: the loader's data queue (EXPORT_QUEUE_URL)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LookupSettings:
        env = os.environ if env is None else env
        values = _read(LOOKUP, env)
        if not is_dataset_name(values["default_dataset"]):
            raise SettingsError(
                f"DEFAULT_DATASET {values['default_dataset']!r} is not a valid name: {DATASET_NAME_RULE}"
            )
        return cls(
            table=TableSettings.from_env(env),
            caches=CacheLimits(**_read(CACHES, env)),
            cors_origins=origins(env.get("CORS_ORIGINS", "")),
            bucket=env.get("BUCKET_NAME", "").strip() or None,
            export_queue=env.get("EXPORT_QUEUE_URL", "").strip() or None,
            **values,
        )


def origins(raw: str) -> tuple[str, ...]:
    """``CORS_ORIGINS``: comma-separated origins, ``*`` when none."""
    named = tuple(origin.strip() for origin in raw.split(",") if origin.strip())
    return named or ("*",)


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
    delete_grace: float = CACHE_TTL.default + DELETE_MARGIN
    limits: Limits = field(default_factory=Limits)  # what one build may read, and how large its directory may be

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
            **values,
        )


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
