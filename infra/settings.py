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

from fencepost.capacity.facts import ON_DEMAND_NEW_READ_UNITS, ON_DEMAND_NEW_WRITE_UNITS
from fencepost.capacity.modes import PREWARM_READ_UNITS, PREWARM_WRITE_UNITS, WARM_READ_UNITS, WARM_WRITE_UNITS
from fencepost.core.declared import Setting
from fencepost.core.limits import BOUNDS, ENVIRONMENT, Limits
from fencepost.settings import CACHES, LOADER, LOADER_CONCURRENCY, LOOKUP, TRACING, CacheLimits
from infra.context import ContextGetter, SettingsError, choice, given, optional_int, text, whole
from infra.front import DEFAULT_FRONT, FrontSettings

# What a brand-new on-demand table already serves (AWS: "New on-demand tables will be able to sustain up to
# 4,000 writes per second and 12,000 reads per second"). Warm throughput below this buys nothing and, since warm
# throughput can never be lowered, is refused at synth. The modes' defaults are the capacity model's
# (fencepost.capacity), which the planner reads too.
ON_DEMAND_BASELINE_READ_UNITS: Final = int(ON_DEMAND_NEW_READ_UNITS)
ON_DEMAND_BASELINE_WRITE_UNITS: Final = int(ON_DEMAND_NEW_WRITE_UNITS)


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
# defaults, from the files it is known to load (fencepost.core.limits says which).
LOADER_LIMITS: Final = Limits()


class Capacity(StrEnum):
    ON_DEMAND = "on-demand"
    PREWARM = "prewarm"
    WARM = "warm"


class Auth(StrEnum):
    NONE = "none"
    IAM = "iam"


@dataclass(frozen=True, slots=True)
class TableCapacity:
    """How the table is billed and warmed. Only the fields of the chosen mode are used."""

    mode: Capacity = Capacity.ON_DEMAND
    max_read_units: int | None = None
    max_write_units: int | None = None
    prewarm_read_units: int = PREWARM_READ_UNITS
    prewarm_write_units: int = PREWARM_WRITE_UNITS
    warm_read_units: int = WARM_READ_UNITS
    warm_write_units: int = WARM_WRITE_UNITS


@dataclass(frozen=True, slots=True)
class DeploySettings:
    capacity: TableCapacity = TableCapacity()
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
    loader_limits: Limits = LOADER_LIMITS  # what one build may read (fencepost.core.limits)
    # Every setting of fencepost.settings' tables as deployed: given with -c, or the stack's default.
    lookup: Mapping[str, Any] = field(default_factory=lambda: chosen(_none, LOOKUP | CACHES))
    loader: Mapping[str, Any] = field(default_factory=lambda: chosen(_none, LOADER))

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
        return environment(LOADER, self.loader) | self.loader_limits.environment()

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
        mode = choice(get, "capacity", Capacity, Capacity.ON_DEMAND)
        _refuse_other_modes_keys(get, mode)
        capacity = TableCapacity(
            mode=mode,
            max_read_units=optional_int(get, "maxReadUnits", low=1),
            max_write_units=optional_int(get, "maxWriteUnits", low=1),
            prewarm_read_units=whole(get, "prewarmReadUnits", PREWARM_READ_UNITS, low=1),
            prewarm_write_units=whole(get, "prewarmWriteUnits", PREWARM_WRITE_UNITS, low=1),
            warm_read_units=whole(get, "warmReadUnits", WARM_READ_UNITS, low=1),
            warm_write_units=whole(get, "warmWriteUnits", WARM_WRITE_UNITS, low=1),
        )
        _check_capacity(capacity)
        removal = text(get, "removal", "retain").lower()
        if removal not in ("retain", "destroy"):
            raise SettingsError(f"removal must be 'retain' (the default) or 'destroy', not {removal!r}")
        rate_limit = whole(get, "rateLimit", RATE_LIMIT, low=1)
        burst_limit = whole(get, "burstLimit", BURST_LIMIT, low=1)
        origins = tuple(o.strip() for o in text(get, "corsOrigins", "*").split(",") if o.strip())
        if not origins:
            raise SettingsError("corsOrigins must name at least one origin (comma separated) or '*'")
        alarm_email = text(get, "alarmEmail", "") or None
        if alarm_email is not None and "@" not in alarm_email:
            raise SettingsError(f"alarmEmail must be an email address, not {alarm_email!r}")
        return cls(
            capacity=capacity,
            destroy_on_delete=removal == "destroy",
            rate_limit=rate_limit,
            burst_limit=burst_limit,
            cors_origins=origins,
            auth=choice(get, "auth", Auth, Auth.NONE),
            loader_concurrency=whole(get, "loaderConcurrency", LOADER_CONCURRENCY, low=2, high=1000),
            control_concurrency=whole(get, "controlConcurrency", CONTROL_CONCURRENCY, low=2, high=1000),
            log_level=_log_level(get, "logLevel"),
            system_log_level=choice(get, "systemLogLevel", SystemLevel, SystemLevel.WARN).value.upper(),
            front=FrontSettings.from_context(get),
            alarm_email=alarm_email,
            lookup=chosen(get, LOOKUP | CACHES),
            loader=chosen(get, LOADER),
            loader_limits=_loader_limits(get),
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
    -c maxDirectoryPartitions=... -c maxColumns=...``: the loader's limits (each its function's ``MAX_...``
    variable)."""
    values = {}
    for name in ENVIRONMENT:
        low, high = BOUNDS[name]
        values[name] = whole(get, _camel(name), getattr(LOADER_LIMITS, name), low=low, high=high)
    return Limits.of(values)


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


LOG_LEVELS: Final = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

# Context keys only one capacity mode reads. Given with another mode they would be ignored without a word, so the
# synth refuses them. After a prewarm, the switch back to on-demand must be a deploy that changes nothing else (a
# failed update rolls the table back to PROVISIONED, billed by the hour), and warm throughput can only go up
# (DynamoDB refuses a value below the table's current one, and the deploy rolls back): docs/deploy.md.
MODE_KEYS: Final = {
    Capacity.PREWARM: ("prewarmReadUnits", "prewarmWriteUnits"),
    Capacity.WARM: ("warmReadUnits", "warmWriteUnits"),
}


def _refuse_other_modes_keys(get: ContextGetter, mode: Capacity) -> None:
    for owner, keys in MODE_KEYS.items():
        named = [key for key in keys if owner is not mode and given(get(key))]
        if not named:
            continue
        if owner is Capacity.WARM:
            raise SettingsError(
                f"{' and '.join(named)} set warm throughput, which only -c capacity=warm deploys; with capacity="
                f"{mode.value} it would be ignored. Warm the table in a deploy of its own, with values at least its "
                "current warm throughput (aws dynamodb describe-table --query Table.WarmThroughput): DynamoDB "
                "refuses a lower one. After a prewarm, first switch back to on-demand with a deploy that changes "
                "nothing else (docs/deploy.md)."
            )
        raise SettingsError(
            f"{' and '.join(named)} size the PROVISIONED table of -c capacity=prewarm; with capacity={mode.value} "
            "they would be ignored. Leave them out: the switch back to on-demand after a prewarm is a deploy that "
            "changes nothing else (docs/deploy.md)."
        )


def _check_capacity(capacity: TableCapacity) -> None:
    caps = capacity.max_read_units is not None or capacity.max_write_units is not None
    if capacity.mode is Capacity.PREWARM and caps:
        raise SettingsError(
            "maxReadUnits/maxWriteUnits cap on-demand throughput; a PROVISIONED (prewarm) table cannot have them. "
            "Deploy the caps with the second, on-demand step."
        )
    if capacity.mode is not Capacity.WARM:
        return
    if capacity.warm_read_units < ON_DEMAND_BASELINE_READ_UNITS:
        raise SettingsError(
            f"warmReadUnits={capacity.warm_read_units} is below the {ON_DEMAND_BASELINE_READ_UNITS:,} read units/s "
            "a new on-demand table already serves. Warm throughput can never be lowered, so a smaller value buys "
            f"nothing: use at least {ON_DEMAND_BASELINE_READ_UNITS} or leave warmReadUnits out."
        )
    if capacity.warm_write_units < ON_DEMAND_BASELINE_WRITE_UNITS:
        raise SettingsError(
            f"warmWriteUnits={capacity.warm_write_units} is below the {ON_DEMAND_BASELINE_WRITE_UNITS:,} write "
            "units/s a new on-demand table already serves. Warm throughput can never be lowered, so a smaller value "
            f"buys nothing: use at least {ON_DEMAND_BASELINE_WRITE_UNITS} or leave warmWriteUnits out."
        )
    for key, cap, warm in (
        ("maxReadUnits", capacity.max_read_units, capacity.warm_read_units),
        ("maxWriteUnits", capacity.max_write_units, capacity.warm_write_units),
    ):
        if cap is not None and cap < warm:
            raise SettingsError(f"{key}={cap} is below the warm throughput {warm}: the table would throttle first")
