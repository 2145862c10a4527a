"""Section 12: lookups in the past. A warm ``as_of`` lookup against a live one (both measured in fresh processes in
the same run, ``bench.probe``), what resolving an instant costs: reading and decoding a long history, and finding
the version in it once cached; and what a page of the diff between two versions costs (``core.versions.diff_walk``) on
the shared IPv4 file against a copy with 0.1% of its rows given another country."""

from __future__ import annotations

import io
import random
import statistics
import time
from collections.abc import Iterator
from typing import Any

from fencepost.aws.dynamo.timelines import event_item, event_of
from fencepost.core.space.addresses import FAMILIES, V4
from fencepost.core.storage.members import START as FIRST
from fencepost.core.storage.members import Position, gzip_members, lines_from
from fencepost.core.storage.piece_files import PieceLine, parse_piece_line, piece_lines
from fencepost.core.versions.diff_walk import Resume, Stop, walk
from fencepost.core.versions.history import Timeline
from fencepost.declared import LOOKUP
from fencepost.model import LivePointer, VersionInfo
from fencepost.reading.past import History
from tests.support import V4_FILE, family_ranges, read_tsv

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


def _pieces_file(rows: list[list[str]]) -> bytes:
    ranges = family_ranges(rows)
    return b"".join(gzip_members(piece_lines(ranges, {family: ranges[family].pieces() for family in FAMILIES})))


def _read(data: bytes, at: Position | None) -> Iterator[tuple[Position, PieceLine]]:
    if at is not None:  # a ranged GET from the member the cursor names, as the route reads it
        for position, line in lines_from(io.BytesIO(data[at.offset :]).read, Position(0, at.line)):
            yield Position(position.offset + at.offset, position.line), parse_piece_line(line.decode())


def diff_pages(changed_share: float = 0.001) -> dict[str, float]:
    """Seconds a page takes at the default ``DIFF_SCAN_PIECES`` (median of the whole walk's pages, 100 changes a
    page at most), and the pages and changes of the whole walk."""
    rows = read_tsv(V4_FILE)
    picked = set(random.Random(26).sample(range(len(rows)), int(len(rows) * changed_share)))
    changed = [[*row[:2], "ZZ"] if k in picked else row for k, row in enumerate(rows)]
    old, new = _pieces_file(rows), _pieces_file(changed)
    scan, seconds, changes = LOOKUP["diff_scan"].default, [], 0
    at: Resume | None = Resume(V4, 0, FIRST, FIRST)
    while at is not None:
        started, found, following = time.perf_counter(), 0, None
        for item in walk(_read(old, at.old), _read(new, at.new), (at.family, at.address), scan):
            if isinstance(item, Stop) or found == 100:
                following = item.at
                break
            found += 1
        seconds.append(time.perf_counter() - started)
        changes, at = changes + found, following
    return {
        "rows": len(rows),
        "scan": scan,
        "pages": len(seconds),
        "changes": changes,
        "page_s": statistics.median(seconds),
    }


def section(live: dict[str, Any], past: dict[str, Any], resolved: dict[str, float], pages: dict[str, float]) -> str:
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
            "- The diff between two versions (`GET /datasets/{name}/diff?from=`), the shared IPv4 file "
            f"({pages['rows']:,} rows) against a copy with 0.1% of its rows changed, read a page at a time from each "
            "page's cursor as the route reads the two pieces files (the Query per change for its data not counted): "
            f"{pages['changes']:,.0f} changes in {pages['pages']:,.0f} pages; a page takes **{pages['page_s']:.2f} s** "
            "(median) at "
            f"`DIFF_SCAN_PIECES` {pages['scan']:,}.",
        ]
    )
