"""Every setting of the functions, declared once: its environment variable, default, bounds and meaning, how its
text is read and written, the error a value it cannot take raises, and the CDK context key that sets it at deploy
when it is a deployment choice.

``fencepost.settings`` reads them into each function's settings; ``infra/`` reads the same tables to check
``-c key=value`` and to write each function's environment. A new setting is one entry here and one field of its
function's dataclass. The loader's limits, which a folder may also lower, are declared the same way in
``fencepost.core.folders.limits``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

T = TypeVar("T", int, float, bool, str)


class SettingsError(ValueError):
    """A value a function or the stack cannot use; the message names the variable or key and what it accepts."""


@dataclass(frozen=True, slots=True)
class Setting(Generic[T]):
    """One setting. ``deployed``: what the stack writes when it differs from the function's own default (local runs
    and tests get ``default``); ``context``: the ``cdk deploy -c`` key that sets it, if it is a deployment choice."""

    env: str
    default: T
    low: float | None = None
    high: float | None = None
    doc: str = ""
    context: str | None = None
    deployed: T | None = None

    def read(self, env: Mapping[str, str]) -> T:
        raw = env.get(self.env, "").strip()
        return self.default if not raw else self.parse(raw, self.env)

    def parse(self, raw: Any, source: str) -> T:
        """``raw`` (text, or a JSON value from ``cdk.json``) as this setting's type, within its bounds."""
        kind = _PARSERS[type(self.default)]
        if isinstance(raw, bool) and not isinstance(self.default, bool):
            raise SettingsError(f"{source} must be {_WHAT[type(self.default)]}, not {raw!r}")
        try:
            value: Any = raw if isinstance(raw, bool) else kind(str(raw).strip())
        except ValueError:
            raise SettingsError(f"{source} must be {_WHAT[type(self.default)]}, not {raw!r}") from None
        if self.low is not None and self.high is not None and not self.low <= float(value) <= self.high:
            raise SettingsError(f"{source} must be between {self.low} and {self.high}, not {value}")
        parsed: T = value
        return parsed

    def text(self, value: T) -> str:
        """``value`` as the function's environment holds it."""
        return ("true" if value else "false") if isinstance(value, bool) else _text(value)


def _whole(raw: str) -> int:
    return int(raw.replace("_", ""))


def _boolean(raw: str) -> bool:
    word = raw.lower()
    if word in ("1", "true", "on", "yes"):
        return True
    if word in ("0", "false", "off", "no"):
        return False
    raise ValueError(raw)


def _text(value: float | int | str) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


_PARSERS: Final[dict[type, Callable[[str], Any]]] = {bool: _boolean, int: _whole, float: float, str: str}
_WHAT: Final = {bool: "on or off (true/false)", int: "a whole number", float: "a number", str: "text"}


MIB: Final = 1024 * 1024


# Shared by both functions: the loader waits this long after a switch before an old version may go.
CACHE_TTL: Final = Setting(
    "CACHE_TTL_SECONDS", 60.0, 0.0, 3600.0, "seconds a container caches a dataset's live version"
)
TRACING: Final = Setting("TRACING", False, doc="X-Ray tracing (costs ~100 ms of cold start)", context="tracing")
# Change events (fencepost.core.events), shared by the functions that announce changes (the loader and the fetch
# function; the admin commands read the same variables): on for every deployed function, off for local runs unless set.
CHANGE_EVENTS: Final[dict[str, Setting[Any]]] = {
    "events": Setting(
        "CHANGE_EVENTS",
        False,
        doc="put an event on EventBridge's default bus for each change of a dataset",
        context="changeEvents",
        deployed=True,
    ),
    "events_source": Setting(
        "EVENTS_SOURCE", "fencepost", doc="the change events' source, which rules match", context="eventsSource"
    ),
    "events_seconds": Setting("EVENTS_SECONDS", 2.0, 0.1, 30.0, "seconds an announcement may take, retries included"),
}

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
    "trusted_proxies": Setting(
        "TRUSTED_PROXIES",
        "none",
        doc="the hops ip=me looks through: none, hops=N, cloudfront[=CIDRs] or networks=CIDRs (core.space.forwarded)",
        context="trustedProxies",
    ),
    "forwarded_entries": Setting("FORWARDED_MAX_ENTRIES", 20, 1, 100, "X-Forwarded-For entries read, from the right"),
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
    # 96 MB: a table of about 300,000 AS numbers with a name and a country (core.keyed.keyed_table.memory_bytes)
    "keyed_bytes": Setting(
        "KEYED_CACHE_BYTES", 96 * MIB, MIB, 8 * 1024 * MIB, "keyed tables kept for joins", "keyedCacheBytes"
    ),
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
    # Enrichment jobs in the bucket (enrichment.job_steps): a part is what one invocation enriches in its time.
    "part_bytes": Setting("ENRICH_PART_BYTES", 64 << 20, 4096, 1 << 30, "text of an input a job's part holds"),
    "max_parts": Setting("ENRICH_MAX_PARTS", 5000, 1, 10_000, "parts a job's inputs may make (a larger job fails)"),
    # Under the data lane's concurrency (LOADER_CONCURRENCY): a job never holds every worker, and a load's chunks
    # queue behind this many of its parts at most, not behind thousands.
    "parts_in_flight": Setting("ENRICH_PARTS_IN_FLIGHT", 8, 1, 1000, "a job's parts on the data queue at once"),
    # Sinks (loading.pushing): the WAF IP sets the loader creates are named <prefix>-<dataset>-v4-1, ... (the stack
    # sets it to its name, and its role may change only the IP sets so named).
    "sink_prefix": Setting("SINK_PREFIX", "fencepost", doc="the start of the names of the WAF IP sets of datasets"),
    **CHANGE_EVENTS,
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
    **CHANGE_EVENTS,
}

# The tables function (handlers/tables.py): each live version as Parquet, registered in the Glue Data Catalog.
TABLES: Final[dict[str, Setting[Any]]] = {
    "glue_database": Setting("GLUE_DATABASE", "fencepost", doc="the Glue database the datasets' tables are in"),
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
