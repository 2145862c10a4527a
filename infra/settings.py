"""Deployment choices read once from CDK context (``-c key=value``) into a typed, validated object.

Every choice has a default, so ``cdk synth`` with no context gives the production shape: an on-demand table and a
bucket that survive stack deletion, a public API, tracing off. A bad value stops the synth with a message that names
the context key and what it accepts; nothing here touches AWS.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from fencepost.core.folders.limits import BOUNDS, ENVIRONMENT, Limits
from fencepost.declared import CACHES, FETCH, LOADER, LOADER_CONCURRENCY, LOOKUP, TRACING, Setting
from fencepost.settings import CacheLimits, origins, trusted_proxies
from infra.athena import AthenaSettings
from infra.context import ContextGetter, SettingsError, choice, given, matching, text, whole
from infra.front import DEFAULT_FRONT, FrontSettings
from infra.sink_lists import sink_prefix_lists
from infra.spark_job import spark_inputs
from infra.table_capacity import TableCapacity, table_capacity

# API stage throttling: steady requests per second and burst. The account default for HTTP APIs is 10,000 rps with a
# burst of 5,000; a lower cap per stage bounds the bill of a runaway client.
RATE_LIMIT: Final = 1_000
BURST_LIMIT: Final = 2_000

# Concurrent loader invocations the control queue's event source may run (S3 notifications and build requests), on
# top of LOADER_CONCURRENCY. Notifications take milliseconds; a build reads its folder's files and may take minutes.
# Two (the minimum) lets a notification or a second dataset's build through while one build runs; chunk writes
# never wait behind builds, nor builds behind chunks.
CONTROL_CONCURRENCY: Final = 2

# The loader's limits (lines, bytes and rows a build may read; partitions a version may span): the function's
# defaults, from the files it is known to load (fencepost.core.folders.limits says which).
LOADER_LIMITS: Final = Limits()
# The secrets a folder's _source.json may name (their names start with it): the fetch function reads no other.
SOURCE_SECRET_PREFIX: Final = "fencepost/"


class Auth(StrEnum):
    NONE = "none"
    IAM = "iam"


@dataclass(frozen=True, slots=True)
class DeploySettings:
    capacity: TableCapacity = field(default_factory=TableCapacity)
    destroy_on_delete: bool = False
    rate_limit: int = RATE_LIMIT
    burst_limit: int = BURST_LIMIT
    cors_origins: tuple[str, ...] = ("*",)
    auth: Auth = Auth.NONE
    loader_concurrency: int = LOADER_CONCURRENCY
    control_concurrency: int = CONTROL_CONCURRENCY
    log_level: str | None = None  # both functions' application logs; None: each function's default below
    system_log_level: str = "WARN"  # Lambda's own lines for both functions: WARN drops START, END and REPORT
    front: FrontSettings = DEFAULT_FRONT  # how lookups reach the lookup function (infra.front)
    alarm_email: str | None = None
    refused_email: str | None = None  # refused builds e-mailed: the change events' example rule (infra.change_events)
    loader_limits: Limits = LOADER_LIMITS  # what one build may read (fencepost.core.folders.limits)
    # Every setting of fencepost.settings' tables as deployed: given with -c, or the stack's default.
    lookup: Mapping[str, Any] = field(default_factory=lambda: chosen(_none, LOOKUP | CACHES))
    loader: Mapping[str, Any] = field(default_factory=lambda: chosen(_none, LOADER))
    fetch: Mapping[str, Any] = field(default_factory=lambda: chosen(_none, FETCH))
    source_secret_prefix: str = SOURCE_SECRET_PREFIX  # the secrets a _source.json may name (infra.fetcher)
    athena: AthenaSettings = field(default_factory=AthenaSettings)  # the tables' workgroup (infra.athena)
    spark_inputs: tuple[str, ...] = ()  # what the Glue Spark job may read rows from (infra.spark_job)
    sink_prefix_lists: tuple[str, ...] = ()  # the managed prefix lists folders' sinks may change (infra.sinks)

    @property
    def tracing(self) -> bool:
        return bool(self.lookup["tracing"])

    @property
    def log_addresses(self) -> bool:
        return bool(self.lookup["log_addresses"])

    @property
    def lookup_caches(self) -> CacheLimits:
        """What a lookup container keeps (fencepost.reading.caches)."""
        return CacheLimits(**{name: self.lookup[name] for name in CACHES})

    @property
    def response_budget(self) -> int:
        """Bytes a lookup answer may take (fencepost.http.budget)."""
        return int(self.lookup["response_budget"])

    @property
    def write_rate(self) -> float:
        return float(self.loader["write_rate"])

    def lookup_environment(self) -> dict[str, str]:
        """The lookup function's settings as its environment holds them (TRACING is every function's)."""
        return environment(LOOKUP | CACHES, self.lookup)

    def loader_environment(self) -> dict[str, str]:
        """The loader's settings, its limits, and the lookups' KEYED_CACHE_BYTES (enrichment jobs join as they do)."""
        keyed = environment({"keyed_bytes": CACHES["keyed_bytes"]}, self.lookup)
        return environment(LOADER, self.loader) | self.loader_limits.environment() | keyed

    def fetch_environment(self) -> dict[str, str]:
        """The fetch function's settings, and the loader's limits it fetches within (MAX_OBJECT_BYTES)."""
        return environment(FETCH, self.fetch) | self.loader_limits.environment()

    @property
    def loader_log_level(self) -> str:
        """INFO by default: a load's progress, a few lines per chunk of thousands of items."""
        return self.log_level or "INFO"

    @property
    def lookup_log_level(self) -> str:
        """WARNING by default: at INFO every refused or NOT_FOUND lookup writes a line, paid per byte."""
        return self.log_level or "WARNING"

    @classmethod
    def from_context(cls, get: ContextGetter) -> DeploySettings:
        """Read every setting through ``get`` (``app.node.try_get_context``); raise SettingsError on a bad value."""
        capacity = table_capacity(get)
        removal = text(get, "removal", "retain").lower()
        if removal not in ("retain", "destroy"):
            raise SettingsError(f"removal must be 'retain' (the default) or 'destroy', not {removal!r}")
        rate_limit = whole(get, "rateLimit", RATE_LIMIT, low=1)
        burst_limit = whole(get, "burstLimit", BURST_LIMIT, low=1)
        cors_origins = origins(text(get, "corsOrigins", "*"), "corsOrigins")
        alarm_email, refused_email = _email(get, "alarmEmail"), _email(get, "refusedEmail")
        lookup = chosen(get, LOOKUP | CACHES)
        trusted_proxies(lookup["trusted_proxies"], lookup["forwarded_entries"], "trustedProxies")
        return cls(
            capacity=capacity,
            destroy_on_delete=removal == "destroy",
            rate_limit=rate_limit,
            burst_limit=burst_limit,
            cors_origins=cors_origins,
            auth=choice(get, "auth", Auth, Auth.NONE),
            loader_concurrency=whole(get, "loaderConcurrency", LOADER_CONCURRENCY, low=2, high=1000),
            control_concurrency=whole(get, "controlConcurrency", CONTROL_CONCURRENCY, low=2, high=1000),
            log_level=_log_level(get, "logLevel"),
            system_log_level=choice(get, "systemLogLevel", SystemLevel, SystemLevel.WARN).value.upper(),
            front=FrontSettings.from_context(get),
            alarm_email=alarm_email,
            refused_email=refused_email,
            lookup=lookup,
            loader=chosen(get, LOADER),
            fetch=chosen(get, FETCH),
            source_secret_prefix=matching(
                get,
                "sourceSecretPrefix",
                SOURCE_SECRET_PREFIX,
                r"[A-Za-z0-9/_+=.@-]{1,256}",
                "the start of secret names",
            ),
            loader_limits=_loader_limits(get),
            athena=AthenaSettings.from_context(get),
            spark_inputs=spark_inputs(get),
            sink_prefix_lists=sink_prefix_lists(get),
        )


class SystemLevel(StrEnum):
    """Lambda's system log levels: DEBUG and INFO keep the START, END and REPORT lines of every invocation."""

    DEBUG = "debug"
    INFO = "info"
    WARN = "warn"


def _log_level(get: ContextGetter, key: str) -> str | None:
    level = text(get, key, "").upper() or None
    if level is not None and level not in LOG_LEVELS:
        raise SettingsError(f"{key} must be DEBUG, INFO, WARNING, ERROR or CRITICAL, not {level!r}")
    return level


def _email(get: ContextGetter, key: str) -> str | None:
    email = text(get, key, "") or None
    if email is not None and "@" not in email:
        raise SettingsError(f"{key} must be an email address, not {email!r}")
    return email


def _none(_key: str) -> None:
    return None


def chosen(get: ContextGetter, table: Mapping[str, Setting[Any]]) -> dict[str, Any]:
    """Each setting of ``table`` as deployed: its ``-c`` key's value when given (checked as the function checks
    its variable), else the value the stack writes (``Setting.deployed``, or the function's default)."""
    values = {}
    for name, setting in table.items():
        raw = get(setting.context) if setting.context else None
        if given(raw):
            assert setting.context is not None
            values[name] = setting.parse(raw, setting.context)
        else:
            values[name] = setting.default if setting.deployed is None else setting.deployed
    return values


def environment(table: Mapping[str, Setting[Any]], values: Mapping[str, Any]) -> dict[str, str]:
    """``values`` of ``table``'s settings as the function's environment variables (TRACING: every function's)."""
    return {setting.env: setting.text(values[name]) for name, setting in table.items() if setting is not TRACING}


def _loader_limits(get: ContextGetter) -> Limits:
    """``-c maxLineBytes=... -c maxObjectBytes=... -c maxBuildBytes=... -c maxBuildRows=...
    -c maxDirectoryPartitions=... -c maxColumns=... -c maxDocumentBytes=... -c maxKeyedRows=...``: the loader's
    limits (each its function's ``MAX_...`` variable)."""
    values = {}
    for name in ENVIRONMENT:
        low, high = BOUNDS[name]
        values[name] = whole(get, _camel(name), getattr(LOADER_LIMITS, name), low=low, high=high)
    return Limits.of(values)


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


LOG_LEVELS: Final = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
