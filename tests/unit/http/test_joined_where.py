"""Reverse lookups by a joined column (``GET /ranges?where=as_name:<name>``, ``fencepost.http.joined_where``): the
pieces listed are exactly those whose lookups answer the name, paged value after value; a cursor keeps its keyed
version while it is kept and expires with it; an unindexed key column, an unknown column and an unreadable keyed
dataset each answer their error."""

from __future__ import annotations

import ipaddress
import time
from collections import Counter, defaultdict
from typing import Any

from bench.reverse import CountingBucket
from bench.several import _NoListings
from fencepost.core.keyed.join_spec import KeyedJoin
from fencepost.core.keyed.keyed_table import KeyedTable
from fencepost.core.space.addresses import FAMILIES, format_address, parse_address
from fencepost.core.storage.objects import index_key, keys_key, values_key
from fencepost.core.versions.history import Event, Timeline, format_instant
from fencepost.core.versions.value_index import build_index, directory_bytes
from fencepost.http.app import create_app
from fencepost.http.joined_where import MAX_VALUES_READ
from fencepost.http.paging import decode_pins, encode_token, pin_digest
from fencepost.observability import Observability
from fencepost.reading.lookup import Lookup
from fencepost.settings import LookupSettings, TableSettings
from tests.fakes.ranges import MemoryStore
from tests.support import V6_FILE, LambdaContext, event, family_ranges, read_tsv
from tests.support.app_calls import get_json

COLUMNS = ("asn", "country", "description")
JOIN = KeyedJoin("as-names", "asn", ("name", "country"), "as_")
HOUR = 3600.0


def _rows() -> list[list[str]]:
    """Rows of the shared IPv6 ASN file, every third row's AS number written ``AS<n>``, as some files write them."""
    rows = read_tsv(V6_FILE, 2_000)
    return [[*row[:2], f"AS{row[2]}" if n % 3 == 0 else row[2], *row[3:]] for n, row in enumerate(rows)]


def _names(rows: list[list[str]], shift: int = 0) -> KeyedTable:
    """An AS-names table of the file's AS numbers: a name shared by two AS numbers each, so one name is several
    values of the index (some written ``AS<n>``); ``shift`` gives the numbers other names."""
    numbers = sorted({int(row[2].removeprefix("AS")) for row in rows if row[2].removeprefix("AS") != "0"})
    return KeyedTable(
        "asn", "asn", ("name", "country"), {str(n): (f"NAME-{(i + shift) // 2}", "ZZ") for i, n in enumerate(numbers)}
    )


class _Timelines(_NoListings):
    def __init__(self) -> None:
        self.events: dict[str, list[Event]] = defaultdict(list)

    def get_timeline(self, dataset: str) -> Timeline:
        return Timeline(self.events[dataset])


class _Service:
    def __init__(self, indexed: tuple[str, ...] = ("asn",)) -> None:
        self.rows = _rows()
        self.start = time.time() - 10 * HOUR
        families = family_ranges(self.rows)
        self.store, self.timelines, self.bucket = MemoryStore(), _Timelines(), CountingBucket({})
        self.store.publish("asn", 1, families, COLUMNS, indexed=indexed, keyed_joins=(JOIN,))
        self.timelines.events["asn"].append(Event(self.start, 1))
        self.pieces = pieces = {family: families[family].pieces() for family in FAMILIES}
        for ordinal, column in enumerate(indexed):
            members, directory = build_index(families, pieces, COLUMNS, column)
            self.bucket.objects[index_key("asn", 1, ordinal)] = b"".join(members)
            self.bucket.objects[values_key("asn", 1, ordinal)] = directory_bytes(directory)
        settings = LookupSettings(table=TableSettings("t"), default_dataset="asn", cache_ttl=0.0)
        obs = Observability(service="fencepost-lookup", tracing=False)
        lookup = Lookup(self.store, 0.0)
        self.api = create_app(settings, lookup, self.timelines, obs, files=lambda: self.bucket)

    def names(self, version: int, table: KeyedTable, hours: float) -> None:
        _, objects = self.store.publish_keyed("as-names", version, table)
        self.bucket.objects.update(objects)
        self.timelines.events["as-names"].append(Event(self.start + hours * HOUR, version))

    def get(self, path: str, status: int = 200, **query: str) -> dict[str, Any]:
        return get_json(self.api, path, status, **query)

    def pages(self, name: str, limit: int = 3, **query: str) -> list[dict[str, Any]]:
        """Every page of ``where=as_name:<name>``."""
        pages: list[dict[str, Any]] = []
        cursor: str | None = None
        while not pages or cursor:
            asked = {"where": f"as_name:{name}", "limit": str(limit), **query} | ({"cursor": cursor} if cursor else {})
            pages.append(self.get("/ranges", 200, **asked))
            cursor = pages[-1]["next"]
        return pages

    def answered(self) -> dict[str | None, set[tuple[str, str]]]:
        """Every stored piece, by the ``as_name`` its lookup answers."""
        by_name: dict[str | None, set[tuple[str, str]]] = defaultdict(set)
        for family, held in self.pieces.items():
            for start, end in zip(held.starts, held.ends, strict=True):
                piece = (format_address(family, start), format_address(family, end))
                by_name[self.get("/lookup", ip=piece[0])["data"]["as_name"]].add(piece)
        return by_name


def _listed(pages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(piece["start"], piece["end"]) for page in pages for piece in page["ranges"]]


def test_the_pieces_listed_by_a_joined_name_are_those_whose_lookups_answer_it() -> None:
    service = _Service()
    service.names(1, _names(service.rows), 0)
    answered = service.answered()
    names = [name for name in answered if name is not None]
    assert len(names) > 50
    spread = 0
    for name in names:
        pages = service.pages(name)
        listed = _listed(pages)
        assert len(listed) == len(set(listed))  # no piece twice, across pages and values
        assert set(listed) == answered[name], name
        asns = {piece["data"]["asn"] for page in pages for piece in page["ranges"]}
        spread += len(asns) > 1 and len(pages) > 1
        assert all(page["joined"] == {"dataset": "as-names", "version": 1, "on": "asn"} for page in pages)
    assert spread > 10  # names of several index values, paged across them
    assert service.pages("NO-SUCH-NAME")[0]["ranges"] == []


def test_each_value_is_listed_in_address_order_value_after_value_and_as_networks() -> None:
    service = _Service()
    service.names(1, _names(service.rows), 0)
    name = Counter(
        service.get("/lookup", ip=row[0])["data"]["as_name"] for row in service.rows if row[2].startswith("AS")
    ).most_common(1)[0][0]
    pieces = [piece for page in service.pages(name, limit=2) for piece in page["ranges"]]
    values = [piece["data"]["asn"] for piece in pieces]
    assert values == sorted(values)  # value after value, in the index's (value) order
    for value in set(values):
        starts = [parse_address(piece["start"])[1] for piece in pieces if piece["data"]["asn"] == value]
        assert starts == sorted(starts)
    networks = [net for page in service.pages(name, limit=2, format="cidr") for net in page["networks"]]
    size = sum(parse_address(p["end"])[1] - parse_address(p["start"])[1] + 1 for p in pieces)
    assert sum(ipaddress.ip_network(net).num_addresses for net in networks) == size
    text = service.api.handle(
        event("lookup-get", queryStringParameters={"where": f"as_name:{name}", "format": "text", "limit": "1000"})
        | {"rawPath": "/ranges"},
        LambdaContext(),
    )
    assert text["body"].split() == networks


def test_a_cursor_keeps_its_keyed_version_and_expires_with_it() -> None:
    service = _Service()
    first, second = _names(service.rows), _names(service.rows, shift=2)
    service.names(1, first, 0)
    name = max((n for n in service.answered().items() if n[0] is not None), key=lambda item: len(item[1]))[0]
    assert name is not None
    before = _listed(service.pages(name, limit=1000))
    page = service.get("/ranges", where=f"as_name:{name}", limit="1")
    service.names(2, second, 1)  # the name now belongs to other AS numbers
    rest = service.pages(name, limit=1000, cursor=page["next"])
    assert [p["joined"]["version"] for p in rest] == [1]  # the page keeps the keyed version its cursor pinned
    assert _listed([page, *rest]) == before
    fresh = service.pages(name, limit=1000)
    assert fresh[0]["joined"]["version"] == 2
    assert set(_listed(fresh)) != set(before)
    at = format_instant(service.start + 0.5 * HOUR)  # as_of: the keyed version live then
    past = service.pages(name, limit=1000, as_of=at)
    assert past[0]["joined"]["version"] == 1
    assert _listed(past) == before
    service.timelines.events["as-names"][0] = Event(service.start, 1, gone=True)
    expired = service.get("/ranges", 410, where=f"as_name:{name}", cursor=page["next"])
    assert expired["error"]["code"] == "CURSOR_EXPIRED"


def test_a_joined_column_needs_its_key_indexed_and_an_unknown_one_is_not_indexed() -> None:
    service = _Service(indexed=("country",))
    service.names(1, _names(service.rows), 0)
    refused = service.get("/ranges", 400, where="as_name:NAME-1")["error"]
    assert refused["code"] == "NOT_INDEXED"
    assert "'asn'" in refused["message"]
    assert "searched through its key's index" in refused["message"]
    unknown = service.get("/ranges", 400, where="as_owner:x")["error"]
    assert unknown["code"] == "NOT_INDEXED"
    assert "indexed columns: country" in unknown["message"]


def test_an_unreadable_keyed_dataset_answers_its_error() -> None:
    service = _Service()
    missing = service.get("/ranges", 404, where="as_name:NAME-1")["error"]
    assert missing["code"] == "UNKNOWN_DATASET"
    assert "as-names" in missing["message"]
    service.names(1, _names(service.rows), 0)
    del service.bucket.objects[keys_key("as-names", 1)]
    assert service.get("/ranges", 503, where="as_name:NAME-1")["error"]["code"] == "UNAVAILABLE"


def test_a_name_of_many_values_reads_a_bounded_number_of_them_a_page() -> None:
    service = _Service()
    numbers = sorted({row[2].removeprefix("AS") for row in service.rows} - {"0"})
    service.names(1, KeyedTable("asn", "asn", ("name", "country"), dict.fromkeys(numbers, ("ALL", "ZZ"))), 0)
    answered = service.answered()["ALL"]
    assert len(numbers) > 3 * MAX_VALUES_READ
    within = "2001:db8::/32"  # inside no piece of the file: every value is read for nothing
    gets: list[int] = []
    pages: list[dict[str, Any]] = []
    cursor: str | None = None
    while not pages or cursor:
        before = service.bucket.gets
        asked = {"where": "as_name:ALL", "limit": "1000", "within": within} | ({"cursor": cursor} if cursor else {})
        pages.append(service.get("/ranges", 200, **asked))
        gets.append(service.bucket.gets - before)
        cursor = pages[-1]["next"]
    assert max(gets) <= MAX_VALUES_READ + 1  # (the directory, on the first page)
    assert _listed(pages) == []
    listed = _listed(service.pages("ALL", limit=1000))
    assert len(listed) == len(set(listed))
    assert set(listed) == answered
    networks = [net for page in service.pages("ALL", limit=1000, format="cidr") for net in page["networks"]]
    size = sum(parse_address(end)[1] - parse_address(start)[1] + 1 for start, end in listed)
    assert sum(ipaddress.ip_network(net).num_addresses for net in networks) == size


def test_a_cursor_of_a_joined_column_without_its_keyed_version_is_refused() -> None:
    service = _Service()
    service.names(1, _names(service.rows), 0)
    first = service.get("/ranges", where="as_name:NAME-1", limit="1")
    assert first["next"] is not None
    line = decode_pins(first["next"], "where", "asn", pin_digest("as_name", "NAME-1"), 3)
    assert line is not None
    unpinned = encode_token(["where", "asn", 1, pin_digest("as_name", "NAME-1"), line[1]])  # the keyed version left out
    refused = service.get("/ranges", 400, where="as_name:NAME-1", cursor=unpinned)["error"]
    assert refused["code"] == "INVALID_REQUEST"
    assert "invalid cursor" in refused["message"]
