"""Every enriched value is what the lookup handler answers: over 100,000 addresses (IPv4, IPv6, mapped, misses,
gaps, reserved space, piece edges) of two datasets built from the shared files by the loader's recipe, enriched here
and asked of the real lookup app (``POST /lookup``, 100 at a time, over the items the loader builds), with every
field, the default fields, and several datasets with ``mode=all`` and ``mode=first``."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bench.several import _NoListings
from fencepost.core.space.addresses import TOP, V4, V6, format_address
from fencepost.enrichment.engine import Enricher
from fencepost.enrichment.resolving import Resolver
from fencepost.enrichment.shape import ALL, FIRST, Shape, parse_fields
from fencepost.enrichment.sources import FileSource
from fencepost.http.app import HttpApi, create_app
from fencepost.loading.local_files import build_files
from fencepost.observability import Observability
from fencepost.reading.answers import Mode
from fencepost.reading.lookup import Lookup
from fencepost.settings import LookupSettings, TableSettings
from tests.fakes.ranges import MemoryStore
from tests.support import SMALL_FILE, V4_FILE, V6_FILE, LambdaContext, event, read_tsv

EVERY = "dataset,version,range,match,data,gap,reserved"
BATCH = 100


def _write(path: Path, rows: Sequence[Sequence[str]]) -> Path:
    path.write_text("".join("\t".join(row) + "\n" for row in rows))
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, FileSource], HttpApi, list[str]]:
    folder = tmp_path_factory.mktemp("datasets")
    v4, v6 = read_tsv(V4_FILE, 30_000), read_tsv(V6_FILE, 20_000)
    files = {
        "geo": _write(folder / "geo.tsv", [*v4, *([s, e, c] for s, e, _, c, _ in v6[::2])]),
        "asn": _write(folder / "asn.tsv", [*read_tsv(SMALL_FILE), *v6[1::2]]),
    }
    store = MemoryStore()
    for name, path in files.items():
        flat = build_files([path], name, 1)
        store.publish(name, 1, flat.flat.families, flat.read.columns)
    sources = {name: FileSource(name, [path]) for name, path in files.items()}
    settings = LookupSettings(table=TableSettings("t"), cache_ttl=3600.0, max_batch=BATCH)
    app = create_app(settings, Lookup(store, 3600.0), _NoListings(), Observability(service="test", tracing=False))
    return sources, app, _addresses(sources, 100_000)


def _addresses(sources: dict[str, FileSource], count: int) -> list[str]:
    """Random addresses anywhere, around the edges of pieces (so in gaps too), mapped IPv4, and reserved space,
    in equal shares."""
    chosen = random.Random(20261128)
    edges: list[tuple[int, int]] = []
    for name, source in sources.items():
        for family, table in source.table(source.info(source.live(name))).families.items():
            for index in chosen.sample(range(len(table)), min(len(table), 2_000)):
                start, end = table.span(index)
                edges += [
                    (family, max(0, start - 1)),
                    (family, start),
                    (family, end),
                    (family, min(TOP[family], end + 1)),
                ]
    reserved = [(V4, 10 << 24), (V4, 127 << 24), (V4, 0xC0A8 << 16), (V4, 0x6440 << 16), (V6, 0xFE80 << 112)]
    out: list[str] = []
    while len(out) < count:
        kind = len(out) % 5
        if kind == 0:
            out.append(format_address(V4, chosen.getrandbits(32)))
        elif kind == 1:
            out.append(format_address(*chosen.choice(edges)))
        elif kind == 2:
            prefix = chosen.choice([0x2001, 0x2400, 0x2A00, 0x2C0F, 0x3FFF])
            out.append(format_address(V6, (prefix << 112) | chosen.getrandbits(100)))
        elif kind == 3:
            out.append("::ffff:" + format_address(V4, chosen.getrandbits(32)))
        else:
            family, base = chosen.choice(reserved)
            out.append(format_address(family, base | chosen.getrandbits(16)))
    return out


def _handler(app: HttpApi, addresses: Sequence[str], **ask: Any) -> list[dict[str, Any]]:
    """Each address's element of ``POST /lookup``, ``ip`` left out (a row holds its address)."""
    found: list[dict[str, Any]] = []
    for at in range(0, len(addresses), BATCH):
        body = {"ips": list(addresses[at : at + BATCH]), **ask}
        answer = app.handle(event("lookup-post", body=json.dumps(body)), LambdaContext())
        assert answer["statusCode"] == 200, answer["body"]
        found += [_without_ip(result) for result in json.loads(answer["body"])["results"]]
    return found


def _without_ip(element: dict[str, Any]) -> dict[str, Any]:
    shown = {key: value for key, value in element.items() if key != "ip"}
    if "answers" in shown:
        shown["answers"] = [_without_ip(answer) for answer in shown["answers"]]
    return shown


def _enriched(
    sources: dict[str, FileSource], names: Sequence[str], addresses: list[str], fields: str | None, mode: Mode
) -> list[dict[str, Any]]:
    resolvers = [Resolver(name, sources[name]) for name in names]
    columns = {name: sources[name].info(sources[name].live(name)).columns for name in names}
    shape = Shape(tuple(names), mode, parse_fields(fields), columns)
    batch = Enricher(shape, resolvers, errors_shown=True).enrich(addresses)
    assert not batch.invalid
    return [batch.objects[known] for known in batch.ids.tolist()]


def test_one_dataset_with_every_field_answers_100_000_addresses_as_the_handler(built: Any) -> None:
    sources, app, addresses = built
    enriched = _enriched(sources, ["geo"], addresses, EVERY, Mode.ALL)
    expected = _handler(app, addresses, dataset="geo", fields=EVERY.split(","))
    kinds = {"found": 0, "gap": 0, "reserved": 0}
    for address, got, want in zip(addresses, enriched, expected, strict=True):
        assert got == {"geo": want}, address
        kinds["found"] += "data" in want
        kinds["gap"] += "gap" in want
        kinds["reserved"] += "reserved" in want
    assert min(kinds.values()) > 5_000, kinds  # each kind of answer is well represented


@pytest.mark.parametrize("fields", [None, "data.col3,version", "range"])
def test_answers_by_piece_are_the_handlers(built: Any, fields: str | None) -> None:
    sources, app, addresses = built
    chosen = addresses[:20_000]
    enriched = _enriched(sources, ["geo"], chosen, fields, Mode.ALL)
    expected = _handler(app, chosen, dataset="geo", fields=(fields or "data").split(","))
    assert enriched == [{"geo": want} for want in expected]


@pytest.mark.parametrize("mode", [Mode.ALL, Mode.FIRST])
def test_several_datasets_answer_as_the_handler(built: Any, mode: Mode) -> None:
    sources, app, addresses = built
    chosen = addresses[-20_000:]
    enriched = _enriched(sources, ["asn", "geo"], chosen, EVERY, mode)
    expected = _handler(app, chosen, datasets=["asn", "geo"], mode=mode.value, fields=EVERY.split(","))
    for address, got, want in zip(chosen, enriched, expected, strict=True):
        if mode is Mode.FIRST:
            assert got == {FIRST: want}, address
        else:
            assert {**got[ALL], "answers": [got["asn"], got["geo"]]} == want, address
