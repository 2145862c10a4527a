"""Section 12: lookups in the past. A warm ``as_of`` lookup against a live one (both measured in fresh processes in
the same run, ``bench.probe``), and what resolving an instant costs: reading and decoding a long history, and
finding the version in it once cached."""

from __future__ import annotations

import statistics
import time
from typing import Any

from fencepost.aws.dynamo.timelines import event_item, event_of
from fencepost.core.history import Timeline
from fencepost.model import LivePointer, VersionInfo
from fencepost.reading.past import History

WEEKS = 520  # ten years of weekly versions: the longest history retain_days (3,650) keeps answerable
WEEK = 604_800.0
START = 1_480_000_000.0


class _Store:
    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = items

    def get_timeline(self, dataset: str) -> Timeline:  # noqa: ARG002
        return Timeline(event_of(item) for item in self.items)


class _NoLive:
    def live_pointer(self, dataset: str) -> LivePointer:
        raise AssertionError(f"{dataset}: the history is never empty here")

    def version_of(self, pointer: LivePointer) -> VersionInfo:
        raise AssertionError(f"{pointer}: not read here")


def _median_us(action: Any, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e6


def resolution(rounds: int = 20_000) -> dict[str, float]:
    """Microseconds to decode a history of ``WEEKS`` events (a cache miss: its one Query's items), and to find
    the version at an instant in a cached one."""
    items = [event_item("geo", START + week * WEEK, week + 1) for week in range(WEEKS)]
    store = _Store(items)
    history = History(store, _NoLive(), ttl=3600)  # type: ignore[arg-type]
    instants = [START + (week + 0.5) * WEEK for week in range(WEEKS)]
    position = iter(range(10**9))
    history.at("geo", instants[0])  # cached from here on
    found = _median_us(lambda: history.at("geo", instants[next(position) % WEEKS]), rounds)
    decoded = _median_us(lambda: store.get_timeline("geo"), max(20, rounds // 200))
    return {"events": WEEKS, "decode_us": decoded, "cached_at_us": found}


def section(live: dict[str, Any], past: dict[str, Any], resolved: dict[str, float]) -> str:
    ratio = past["median_us"] / live["median_us"]
    return "\n".join(
        [
            "### 12. Lookups in the past (`as_of`)",
            "",
            "The lookup function as deployed, DynamoDB replaced by the in-memory client of section 3, the range cache "
            "off (every call makes its Query), fresh processes in this run:",
            "",
            "| warm `GET /lookup` | median | p99 |",
            "|---|---:|---:|",
            f"| live | {live['median_us']:.0f} us | {live['p99_us']:.0f} us |",
            f"| `as_of` an instant (the version resolved from the cached history) | {past['median_us']:.0f} us | "
            f"{past['p99_us']:.0f} us |",
            "",
            f"- `as_of` / live: **{ratio:.2f}x**; both make the same one Query per address (the history is read once "
            "per container and cache TTL, like the live pointer).",
            f"- Resolving an instant in a cached history of {resolved['events']:,} versions (ten years of weekly "
            f"versions): {resolved['cached_at_us']:.2f} us; decoding that history from its one Query's items "
            f"(a cache miss): {resolved['decode_us'] / 1000:.2f} ms.",
        ]
    )
