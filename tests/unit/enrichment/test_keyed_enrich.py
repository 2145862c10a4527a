"""Keyed datasets joined into enrichment (``enrichment.keyed_joins``): every enriched row is what the lookup app
answers for its address as of the row's instant (``POST /lookup`` with ``as_of``), its joined columns and ``joined``
included, for instants in each keyed version, before the keyed dataset's first version, and with no keyed dataset
loaded; rows of one piece joined with different keyed versions are never merged; each keyed table is read once per
job; CSV output carries the joined names as columns; ``--ranges`` with ``--keyed`` files joins without a service."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.reverse import CountingBucket
from bench.several import _NoListings
from enrich.__main__ import main as enrich_main
from fencepost.core.keyed.join_spec import KeyedJoin
from fencepost.core.keyed.keyed_table import KeyedTable
from fencepost.core.space.addresses import V4, V6, parse_address
from fencepost.core.storage.objects import keys_key, table_key
from fencepost.core.storage.table_files import table_lines
from fencepost.core.versions.build import FamilyRanges
from fencepost.core.versions.history import Event, Timeline, format_instant
from fencepost.enrichment.engine import Enricher
from fencepost.enrichment.input_lines import JobError
from fencepost.enrichment.job_plans import REFUSED, pinned_versions
from fencepost.enrichment.job_spec import JobSpec, assemble
from fencepost.enrichment.resolving import Resolver
from fencepost.enrichment.shape import Shape, answer_columns, parse_fields
from fencepost.enrichment.sources import PinnedSource, ServiceSource
from fencepost.http.app import create_app
from fencepost.observability import Observability
from fencepost.reading.answers import Mode
from fencepost.reading.lookup import Lookup
from fencepost.reading.past import History
from fencepost.settings import LookupSettings, TableSettings
from tests.fakes.ranges import MemoryStore
from tests.support import LambdaContext, event

JOIN = KeyedJoin("as-names", "asn", ("name", "country"), "as_")
ROWS = [
    ("1.0.0.0", "1.0.0.255", "13335"),
    ("8.8.8.0", "8.8.8.255", "AS15169"),
    ("9.9.9.0", "9.9.9.255", "64512"),
    ("2001:db8::", "2001:db8::ffff", "as13335"),
]
ADDRESSES = ["1.0.0.1", "1.0.0.200", "8.8.8.8", "9.9.9.9", "2.2.2.2", "2001:db8::1", "10.0.0.1"]
RANGES_SINCE = 1_000_000_000.0  # 2001-09-09
NAMES = {1: 1_600_000_000.0, 2: 1_700_000_000.0}  # 2020-09-13, 2023-11-14
INSTANTS = [1_500_000_000.0, 1_650_000_000.0, 1_750_000_000.0]  # before the names, in version 1, in version 2
EVERY = "dataset,version,range,match,data,joined,gap,reserved"


class _Timelines(_NoListings):
    """Each dataset's switches, as ``as_of`` reads them."""

    def __init__(self, events: dict[str, list[Event]]) -> None:
        self.events = events

    def get_timeline(self, dataset: str) -> Timeline:
        return Timeline(self.events.get(dataset, []))


class _Service:
    """A range dataset joining ``as-names``, in memory: the lookup app over it, and the enrichment source the
    service gives (``ServiceSource``: histories and headers by the lookup's read path, files from the bucket)."""

    def __init__(self) -> None:
        self.store, self.timelines, self.bucket = MemoryStore(), _Timelines({}), CountingBucket({})
        self.reads: list[str] = []  # the objects enrichment read, by key
        families = {V4: FamilyRanges(V4), V6: FamilyRanges(V6)}
        for start, end, asn in ROWS:
            family, first = parse_address(start)
            families[family].add(first, parse_address(end)[1], (asn,))
        self.store.publish("asn", 1, families, ["asn"], keyed_joins=(JOIN,))
        pieces = {family: ranges.pieces() for family, ranges in families.items()}
        lines = "".join(table_lines(families, pieces, ["asn"], ()))
        self.bucket.objects[table_key("asn", 1)] = gzip.compress(lines.encode())
        self.timelines.events["asn"] = [Event(RANGES_SINCE, 1)]
        settings = LookupSettings(table=TableSettings("t"), cache_ttl=0.0, max_batch=100)
        obs = Observability(service="test", tracing=False)
        self.app = create_app(settings, Lookup(self.store, 0.0), self.timelines, obs, files=lambda: self.bucket)

    def names(self, version: int, *rows: tuple[str, str, str]) -> None:
        table = KeyedTable("asn", "asn", ("name", "country"), {asn: (name, cc) for asn, name, cc in rows})
        _, objects = self.store.publish_keyed("as-names", version, table)
        self.bucket.objects.update(objects)
        self.timelines.events.setdefault("as-names", []).append(Event(NAMES[version], version))

    def source(self) -> ServiceSource:
        history = History(self.timelines, Lookup(self.store, float("inf")), float("inf"))
        return ServiceSource(history, self.read)

    def read(self, key: str) -> bytes | None:
        self.reads.append(key)
        return self.bucket.objects.get(key)

    def handler(self, instant: float | None, fields: str) -> list[dict[str, Any]]:
        """Each address's element of ``POST /lookup`` at ``instant`` (None: now), ``ip`` and ``as_of`` left out."""
        body: dict[str, Any] = {"ips": ADDRESSES, "dataset": "asn", "fields": fields.split(",")}
        if instant is not None:
            body["as_of"] = format_instant(instant)
        answer = self.app.handle(event("lookup-post", body=json.dumps(body)), LambdaContext())
        assert answer["statusCode"] == 200, answer["body"]
        results = json.loads(answer["body"])["results"]
        return [{k: v for k, v in result.items() if k not in ("ip", "as_of")} for result in results]


def _versions() -> _Service:
    service = _Service()
    service.names(1, ("13335", "CLOUDFLARE-OLD", "US"), ("15169", "GOOGLE", "US"))
    service.names(2, ("13335", "CLOUDFLARENET", "US"), ("64512", "PRIVATE", "ZZ"))
    return service


def _enricher(service: _Service, fields: str, *, errors_shown: bool = True) -> Enricher:
    source = service.source()
    columns = answer_columns(source.info(source.live("asn")))
    shape = Shape(("asn",), Mode.ALL, parse_fields(fields), {"asn": columns})
    return Enricher(shape, [Resolver("asn", source)], errors_shown=errors_shown)


@pytest.mark.parametrize("fields", [EVERY, "data", "data,joined", "data.as_name,version"])
def test_rows_at_their_own_instants_are_the_handlers_answers_then(fields: str) -> None:
    service = _versions()
    texts = [address for _ in INSTANTS for address in ADDRESSES]
    instants = np.array([instant for instant in INSTANTS for _ in ADDRESSES])
    batch = _enricher(service, fields).enrich(texts, instants)
    got = [batch.objects[known]["asn"] for known in batch.ids.tolist()]
    expected = [answer for instant in INSTANTS for answer in service.handler(instant, fields)]
    assert got == expected
    if "joined" in fields:
        assert {row["joined"][0]["version"] for row in got if "joined" in row} == {None, 1, 2}
        before = got[0]["joined"][0]
        assert before["error"]["code"] == "NO_VERSION_AT"
        assert (before["version"], before["found"]) == (None, False)
    if fields == "data":
        assert [row["data"]["as_name"] for row in got[: len(ADDRESSES)][:3]] == [None, None, None]
        assert got[len(ADDRESSES)]["data"]["as_name"] == "CLOUDFLARE-OLD"
        assert got[2 * len(ADDRESSES)]["data"]["as_name"] == "CLOUDFLARENET"
    every = len(ADDRESSES)  # the rows of a version that joins, found or not
    assert batch.versions == {("asn", 1): 3 * every, ("as-names", 1): every, ("as-names", 2): every}
    assert batch.refused == {"as-names": every}  # the rows of the first instant joined no keyed version


@pytest.mark.parametrize("fields", ["data", "data,joined", "data.as_country"])
def test_rows_answered_once_per_piece_are_the_handlers_answers_where_found(fields: str) -> None:
    """Without errors shown, rows are answered once per piece (only ``data``: per piece's values) and keyed slot."""
    service = _versions()
    texts = [address for _ in INSTANTS for address in ADDRESSES] * 2
    instants = np.array([instant for instant in INSTANTS for _ in ADDRESSES] * 2)
    batch = _enricher(service, fields, errors_shown=False).enrich(texts, instants)
    got = [batch.objects[known]["asn"] for known in batch.ids.tolist()]
    expected = [answer for instant in INSTANTS for answer in service.handler(instant, fields)] * 2
    found = [(one, other) for one, other in zip(got, expected, strict=True) if "data" in other]
    assert len(found) == 2 * len(INSTANTS) * 5  # five of the addresses are in a range
    assert [one for one, _ in found] == [other for _, other in found]
    assert len(set(batch.ids.tolist())) < len(texts) // 2  # answered once per key, not per row


@pytest.mark.parametrize("instant", [None, *INSTANTS])
def test_rows_at_one_instant_or_now_are_the_handlers_answers(instant: float | None) -> None:
    service = _versions()
    batch = _enricher(service, EVERY).enrich(ADDRESSES, fixed=instant)
    got = [batch.objects[known]["asn"] for known in batch.ids.tolist()]
    assert got == service.handler(instant, EVERY)


def test_one_piece_joined_with_two_keyed_versions_is_two_answers_and_each_table_is_read_once() -> None:
    service = _versions()
    enricher = _enricher(service, "data", errors_shown=False)  # rows answered once per piece's values
    for _ in range(3):  # batches: the keyed versions met are read once for the job
        batch = enricher.enrich(["1.0.0.1", "1.0.0.2"], np.array(INSTANTS[1:]))
        names = [batch.objects[known]["asn"]["data"]["as_name"] for known in batch.ids.tolist()]
        assert names == ["CLOUDFLARE-OLD", "CLOUDFLARENET"]
        assert len(set(batch.ids.tolist())) == 2
    assert sorted(service.reads) == sorted([table_key("asn", 1), keys_key("as-names", 1), keys_key("as-names", 2)])


def test_a_keyed_dataset_not_loaded_leaves_the_columns_null_as_lookups_do() -> None:
    service = _Service()
    batch = _enricher(service, EVERY).enrich(ADDRESSES)
    got = [batch.objects[known]["asn"] for known in batch.ids.tolist()]
    assert got == service.handler(None, EVERY)
    assert got[0]["data"] == {"asn": "13335", "as_name": None, "as_country": None}
    assert got[0]["joined"][0]["error"]["code"] == "UNKNOWN_DATASET"
    assert batch.versions == {("asn", 1): len(ADDRESSES)}


def test_a_csv_output_carries_the_joined_names_as_columns() -> None:
    service = _versions()
    spec = JobSpec(datasets=("asn",), column="ip", time="at", fields="data,joined")
    job = assemble(spec, "rows.csv", lambda _name: service.source())
    out = io.BytesIO()
    text = "at,ip\n2022-01-01T00:00:00Z,1.0.0.1\n2024-01-01T00:00:00Z,1.0.0.1\n2024-01-01T00:00:00Z,8.8.8.8\n"
    summary = job.run(io.BytesIO(text.encode()), "rows.csv", out.write)
    lines = out.getvalue().decode().splitlines()
    assert lines[0] == "at,ip,asn.data.asn,asn.data.as_name,asn.data.as_country,asn.joined"
    assert lines[1].startswith("2022-01-01T00:00:00Z,1.0.0.1,13335,CLOUDFLARE-OLD,US,")
    assert lines[2].startswith("2024-01-01T00:00:00Z,1.0.0.1,13335,CLOUDFLARENET,US,")
    assert lines[3].startswith("2024-01-01T00:00:00Z,8.8.8.8,AS15169,,,")
    assert '""found"": false' in lines[3]
    assert summary.versions == {"asn": {1: 3}, "as-names": {1: 1, 2: 2}}


def test_ranges_and_keyed_files_join_without_a_service(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names, ranges = tmp_path / "as-names", tmp_path / "asn"
    names.mkdir()
    ranges.mkdir()
    (names / "_settings.json").write_text('{"key": "asn"}\n')
    (names / "asn.txt").write_text("13335 CLOUDFLARENET - Cloudflare, Inc., US\n")
    (ranges / "_settings.json").write_text(json.dumps({"keyed_joins": [JOIN.document()]}))
    (ranges / "ranges.csv").write_text("start,end,asn\n1.1.1.0,1.1.1.255,13335\n9.9.9.0,9.9.9.255,19281\n")
    (tmp_path / "in.jsonl").write_text('{"ip": "1.1.1.1"}\n{"ip": "9.9.9.9"}\n')
    out = tmp_path / "out.jsonl"
    args = [str(tmp_path / "in.jsonl"), "--out", str(out), "--quiet", "--fields", "data"]
    args += [f"--ranges=asn={path}" for path in (ranges / "_settings.json", ranges / "ranges.csv")]
    args += [f"--keyed=as-names={path}" for path in (names / "_settings.json", names / "asn.txt")]
    assert enrich_main(args) == 0, capsys.readouterr().err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["asn"]["data"] == {"asn": "13335", "as_name": "CLOUDFLARENET - Cloudflare, Inc.", "as_country": "US"}
    assert rows[1]["asn"]["data"] == {"asn": "19281", "as_name": None, "as_country": None}
    without = [arg for arg in args if not arg.startswith("--keyed")]
    assert enrich_main(without) == 0
    assert json.loads(out.read_text().splitlines()[0])["asn"]["data"]["as_name"] is None  # no keyed files: nulls


def test_a_keyed_dataset_not_loaded_when_a_job_is_planned_stays_unjoined_in_every_part() -> None:
    service = _Service()
    pins = pinned_versions(service.source(), ("asn",))  # as planned: no names yet
    service.names(1, ("13335", "CLOUDFLARENET", "US"))  # loaded while the parts run
    source = PinnedSource(service.source(), {name: (pin[0], pin[1]) for name, pin in pins.items()})
    columns = answer_columns(source.info(source.live("asn")))
    shape = Shape(("asn",), Mode.ALL, parse_fields(EVERY), {"asn": columns})
    batch = Enricher(shape, [Resolver("asn", source)], errors_shown=True).enrich(ADDRESSES)
    got = [batch.objects[known]["asn"] for known in batch.ids.tolist()]
    assert got[0]["data"] == {"asn": "13335", "as_name": None, "as_country": None}
    assert got[0]["joined"][0]["error"]["code"] == "UNKNOWN_DATASET"
    assert batch.versions == {("asn", 1): len(ADDRESSES)}


def test_a_keyed_version_pinned_for_a_job_and_deleted_before_a_part_runs_fails_the_part() -> None:
    service = _versions()
    pins = pinned_versions(service.source(), ("asn",))
    assert pins["as-names"][0] == 2
    del service.bucket.objects[keys_key("as-names", 2)]  # cleaned up while the job ran
    source = PinnedSource(service.source(), {name: (pin[0], pin[1]) for name, pin in pins.items()})
    columns = answer_columns(source.info(source.live("asn")))
    shape = Shape(("asn",), Mode.ALL, parse_fields(EVERY), {"asn": columns})
    with pytest.raises(JobError, match=r"version 2 of keyed dataset 'as-names', pinned when the job was planned"):
        Enricher(shape, [Resolver("asn", source)], errors_shown=True).enrich(ADDRESSES)
    assert issubclass(JobError, REFUSED)  # the job fails naming it, as it does for a range version's table
