"""``make bench``'s range-cache section measures what it says: the popularity models draw what they claim, and the
hit ratios are Queries saved, counted by the store."""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter

from bench import workload
from fencepost.core.space.addresses import parse_address
from fencepost.declared import MIB
from tests.support import V4_FILE, read_tsv

ROWS = read_tsv(V4_FILE, 3000)


def test_zipf_draws_fall_inside_ranges_and_favour_a_few() -> None:
    drawn = workload.addresses(ROWS, "zipf", 20_000)
    bounds = [(parse_address(row[0])[1], parse_address(row[1])[1]) for row in ROWS]
    starts = sorted(start for start, _ in bounds)
    ends = dict(bounds)
    holders = [starts[bisect_right(starts, a) - 1] for a in drawn]
    assert all(a <= ends[holder] for a, holder in zip(drawn, holders, strict=True))
    counts = Counter(holders).most_common()
    assert counts[0][1] > 20_000 / 20  # rank 1 takes about 1/H(3000) = 12% of the draws
    assert len(counts) < 3000


def test_uniform_draws_span_the_file() -> None:
    drawn = workload.addresses(ROWS, "uniform", 5000)
    low, high = parse_address(ROWS[0][0])[1], parse_address(ROWS[-1][1])[1]
    assert low <= min(drawn) < low + (high - low) // 10
    assert high - (high - low) // 10 < max(drawn) <= high


def test_hit_ratios_are_queries_saved() -> None:
    off, on = workload.hit_ratios(ROWS, 5000, sizes=(0, 8 * MIB))[:2]  # the uniform model
    assert (off.model, off.queries, off.hit_ratio, off.entries) == ("uniform", 5000, 0.0, 0)
    assert on.queries < 5000
    assert on.entries == on.queries  # every Query's stretch is kept (far below 8 MiB), and nothing else
    text = workload.markdown(
        workload.hit_ratios(ROWS, 2000), [workload.Latency("cache off", [0.001, 0.002])], 55e-6, 40e-6, len(ROWS)
    )
    assert "target at least 80%" in text
    assert "-15 us (target within +10 us: met)" in text
