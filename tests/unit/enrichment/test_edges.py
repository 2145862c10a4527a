"""Edges a reviewer found: IPv6 addresses a version answers through an alias even where an IPv6 piece of its own
lies, ``mode=first`` with a dataset that had no version at a row's time, rows refused at many instants without
keeping an answer each, times and JSON no history or parser can take, options that cannot go together, and the
cells of a log written as CSV or TSV a spreadsheet would run."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest

from enrich.__main__ import main as enrich_main
from fencepost.core.keyed.keyed_table import KeyedTable
from fencepost.core.space.addresses import V4, V6, parse_address
from fencepost.core.space.aliases import parse_alias
from fencepost.core.versions.build import FamilyRanges
from fencepost.core.versions.history import Event, Timeline
from fencepost.enrichment.engine import Enricher
from fencepost.enrichment.inputs import InputError, Reader
from fencepost.enrichment.job import Job
from fencepost.enrichment.outputs import Writer
from fencepost.enrichment.resolving import Resolver
from fencepost.enrichment.shape import FIRST, Shape, parse_fields
from fencepost.enrichment.table import VersionTable
from fencepost.errors import InvalidRequest, NoVersionAt, UnknownDataset
from fencepost.model import LivePointer, VersionInfo
from fencepost.reading.answers import Answer, Mode
from fencepost.reading.lookup import Lookup
from tests.fakes.ranges import MemoryStore

ALIAS = "2002::/16"


class _Source:
    """One version of ``name`` from ``rows`` (start, end, value), live from ``since``; nothing before it."""

    def __init__(self, name: str, rows: list[tuple[str, str, str]], *, aliases: tuple[str, ...] = (), since: float = 0):
        self.name, self.since = name, since
        self.families = {V4: FamilyRanges(V4), V6: FamilyRanges(V6)}
        for start, end, value in rows:
            family, first = parse_address(start)
            self.families[family].add(first, parse_address(end)[1], (value,))
        pieces = {family: ranges.pieces() for family, ranges in self.families.items()}
        directories = {family: ranges.directory(pieces[family]) for family, ranges in self.families.items()}
        parsed = tuple(map(parse_alias, aliases))
        self.version_info = VersionInfo(name, 1, ("owner",), directories, True, parsed)
        self._table = VersionTable.of_build(self.families, pieces, ("owner",), aliases)

    def live(self, dataset: str) -> LivePointer:
        return LivePointer(dataset, 1, self.since)

    def at(self, dataset: str, instant: float) -> LivePointer:
        if instant < self.since:
            raise NoVersionAt(f"dataset {dataset!r} had no version at {instant}")
        return self.live(dataset)

    def timeline(self, dataset: str) -> Timeline:
        return Timeline([Event(self.since, 1)])

    def info(self, pointer: LivePointer) -> VersionInfo:
        return self.version_info

    def table(self, info: VersionInfo) -> VersionTable:
        return self._table

    def keyed(self, info: VersionInfo) -> KeyedTable:
        raise UnknownDataset(f"no keyed dataset named {info.dataset!r}")


def _objects(
    sources: list[Any], texts: list[str], *, mode: Mode = Mode.ALL, fields: str | None = None, **kw: Any
) -> list[Any]:
    names = tuple(source.name for source in sources)
    shape = Shape(names, mode, parse_fields(fields), dict.fromkeys(names, ("owner",)))
    enricher = Enricher(shape, [Resolver(source.name, source) for source in sources], errors_shown=True)
    batch = enricher.enrich(texts, **kw)
    return [batch.objects.get(known) for known in batch.ids.tolist()]


def test_an_ipv6_address_under_an_alias_is_answered_through_it_even_beside_an_ipv6_piece() -> None:
    rows = [("1.2.3.0", "1.2.3.255", "v4"), ("2002:102:300::", "2002:102:3ff:ffff:ffff:ffff:ffff:ffff", "v6")]
    source = _Source("geo", rows, aliases=(ALIAS,))
    store = MemoryStore()
    store.publish("geo", 1, source.families, ["owner"], aliases=(parse_alias(ALIAS),))
    lookup = Lookup(store, 60.0)
    address = "2002:102:304::1"  # carries 1.2.3.4, and lies in the IPv6 piece too
    expected = lookup.answer(lookup.live("geo"), *parse_address(address))
    [got] = _objects([source], [address], fields="data")
    assert isinstance(expected, Answer)
    assert expected.body(("data",))["data"] == {"owner": "v4"}
    assert got == {"geo": {"data": {"owner": "v4"}}}


def test_mode_first_with_a_dataset_that_had_no_version_then_is_refused_as_get_lookup_refuses_it() -> None:
    early = _Source("early", [("1.0.0.0", "1.0.0.255", "A")], since=0)
    late = _Source("late", [("1.0.0.0", "1.0.0.255", "B")], since=1000)
    instants = np.array([10.0, 2000.0])
    [before, after] = _objects([late, early], ["1.0.0.1", "1.0.0.1"], mode=Mode.FIRST, instants=instants)
    assert before[FIRST]["error"]["code"] == "NO_VERSION_AT"
    assert "late" in before[FIRST]["error"]["message"]
    assert "data" not in before[FIRST]  # not the next dataset's answer
    assert after == {FIRST: {"data": {"owner": "B"}}}


def test_rows_refused_at_many_instants_keep_no_answer_between_batches() -> None:
    source = _Source("geo", [("1.0.0.0", "1.0.0.255", "A")], since=10_000)
    shape = Shape(("geo",), Mode.ALL, parse_fields("data"), {"geo": ("owner",)})
    enricher = Enricher(shape, [Resolver("geo", source)], errors_shown=False)
    for batch in range(5):
        instants = np.arange(1000, dtype=np.float64) + batch * 1000  # every one before the version
        found = enricher.enrich(["1.0.0.1"] * 1000, instants)
        assert len(found.fresh) == 1000
        assert found.refused == {"geo": 1000}
    assert len(enricher._objects) == 0


@pytest.mark.parametrize("when", ["-9999999999999999", "99999999999999999", "1e300"])
def test_a_time_no_date_can_show_is_a_bad_row(when: str) -> None:
    job = _job(_Source("geo", [("1.0.0.0", "1.0.0.255", "A")]), Reader("csv", column="ip", time="at"), "csv")
    out = io.BytesIO()
    summary = job.run(io.BytesIO(f"at,ip\n{when},1.0.0.1\n5,1.0.0.2\n".encode()), "t.csv", out.write)
    assert (summary.rows, summary.bad) == (2, 1)
    assert summary.first_bad[0]["line"] == 2
    assert out.getvalue().decode().splitlines()[1:] == [f"{when},1.0.0.1,", "5,1.0.0.2,A"]


def test_json_nested_too_deep_is_a_bad_row() -> None:
    rows = Reader("jsonl").read(["[" * 100_000, '{"ip": "1.0.0.1"}'], 1)
    assert rows.addresses == ["", "1.0.0.1"]
    assert "nested too deep" in rows.bad[0]


def test_options_that_cannot_go_together_are_refused(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InputError, match="holds no time"):
        Reader("lines", time="at")
    ranges = tmp_path / "geo.tsv"
    ranges.write_text("1.0.0.0\t1.0.0.255\tA\n")
    data = tmp_path / "rows.csv"
    data.write_text("at,ip\n5,1.0.0.1\n")
    code = enrich_main([str(data), "--ranges", f"geo={ranges}", "--time", "at", "--as-of", "2026-01-01T00:00:00Z"])
    assert code == 1
    assert "not both" in capsys.readouterr().err


@pytest.mark.parametrize("form", ["csv", "tsv"])
def test_a_logs_fields_a_spreadsheet_would_run_are_written_as_text(form: str) -> None:
    line = (
        "http 2018-07-02T22:23:00.186641Z app/lb/1 1.0.0.1:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "
        '"GET http://x/ HTTP/1.1" "=HYPERLINK(""http://evil"")" - -'
    )
    job = _job(_Source("geo", [("1.0.0.0", "1.0.0.255", "\n=1+1")]), Reader("alb"), form)
    out = io.BytesIO()
    job.run(io.BytesIO(line.encode() + b"\n"), "alb.log", out.write)
    written = out.getvalue().decode()
    assert "'=HYPERLINK" in written  # the client's user agent
    # The dataset's value: quoted whole in CSV (a line break starts it), a space for the line break in TSV, guarded
    assert ('"\n=1+1"' if form == "csv" else "' =1+1") in written
    assert "\t=" not in written
    assert ",=" not in written
    assert "\t-\t" in written or ",-," in written  # a log's "-" (no value) stays as it is


def _job(source: Any, reader: Reader, form: str) -> Job:
    shape = Shape((source.name,), Mode.ALL, parse_fields("data"), {source.name: ("owner",)})
    enricher = Enricher(shape, [Resolver(source.name, source)], errors_shown=False)
    return Job(reader, Writer(form, reader, shape.columns()), enricher)


@pytest.mark.parametrize("names", [("geo", "geo"), ("all", "geo"), ("geo", "first")])
def test_datasets_whose_columns_would_collide_are_refused(names: tuple[str, str]) -> None:
    with pytest.raises(InvalidRequest, match="named"):
        Shape(names, Mode.ALL, parse_fields("data"), dict.fromkeys(names, ("owner",)))
