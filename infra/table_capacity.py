"""How the table is billed and warmed (``-c capacity=on-demand|prewarm|warm`` and each mode's keys), read from the
CDK context and checked before anything is synthesized."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from capacity.facts import ON_DEMAND_NEW_READ_UNITS, ON_DEMAND_NEW_WRITE_UNITS
from capacity.modes import PREWARM_READ_UNITS, PREWARM_WRITE_UNITS, WARM_READ_UNITS, WARM_WRITE_UNITS
from infra.context import ContextGetter, SettingsError, choice, given, optional_int, whole

# What a brand-new on-demand table already serves (AWS: "New on-demand tables will be able to sustain up to
# 4,000 writes per second and 12,000 reads per second"). Warm throughput below this buys nothing and, since warm
# throughput can never be lowered, is refused at synth. The modes' defaults are the capacity model's
# (capacity), which the planner reads too.
ON_DEMAND_BASELINE_READ_UNITS: Final = int(ON_DEMAND_NEW_READ_UNITS)
ON_DEMAND_BASELINE_WRITE_UNITS: Final = int(ON_DEMAND_NEW_WRITE_UNITS)


class Capacity(StrEnum):
    ON_DEMAND = "on-demand"
    PREWARM = "prewarm"
    WARM = "warm"


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


# Context keys only one capacity mode reads. Given with another mode they would be ignored without a word, so the
# synth refuses them. After a prewarm, the switch back to on-demand must be a deploy that changes nothing else (a
# failed update rolls the table back to PROVISIONED, billed by the hour), and warm throughput can only go up
# (DynamoDB refuses a value below the table's current one, and the deploy rolls back): docs/deploy.md.
MODE_KEYS: Final = {
    Capacity.PREWARM: ("prewarmReadUnits", "prewarmWriteUnits"),
    Capacity.WARM: ("warmReadUnits", "warmWriteUnits"),
}


def table_capacity(get: ContextGetter) -> TableCapacity:
    """The capacity mode and its figures; SettingsError for a key of another mode or a figure that buys nothing."""
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
    return capacity


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
