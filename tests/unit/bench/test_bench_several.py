"""``make bench``'s several-dataset section measures what it says: one Query per dataset, through the real app."""

from __future__ import annotations

from bench import several


def test_the_several_dataset_section_counts_one_query_per_dataset_and_reports_its_ratio() -> None:
    delayed = several.measure(lookups=20, delay=0.001, rows=2000, warmup=3)
    bare = several.measure(lookups=20, delay=0.0, rows=2000, warmup=3)
    for measured in (delayed, bare):
        assert set(measured.timings) == set(several.CONFIGURATIONS)
        assert measured.timings[several.ONE].queries == 1
        assert measured.timings[several.ALL].queries == 3
        assert measured.timings[several.FIRST].queries == 3
        assert all(0 < timing.p50 <= timing.p99 for timing in measured.timings.values())
    assert (delayed.lookups, delayed.rows, delayed.delay) == (20, 2000, 0.001)
    assert delayed.ratio == delayed.timings[several.ALL].p50 / delayed.timings[several.ONE].p50

    section = several.section(delayed, bare)
    assert f"**{delayed.ratio:.2f}x**" in section
    assert "1 ms per Query" in section
    assert f"a thread pool of {delayed.pool}" in section
    rows = [line for line in section.splitlines() if line.startswith("|")]
    assert len(rows) == 2 + len(several.CONFIGURATIONS)  # the header's two lines, then one per configuration
    assert all(line.count("|") == 7 for line in rows)
