"""Keyed datasets joined into answers (``fencepost.reading.joining``): the joined columns come from the keyed version
live at the request, a new keyed version changes the answers with no new range version, a warm lookup reads nothing
more than one without a join, and a keyed dataset that cannot be read leaves the answer whole, its columns null."""

from __future__ import annotations

import gzip
import json
import random
from typing import Any

import pytest

from bench.reverse import CountingBucket
from bench.several import _NoListings
from fencepost.core.keyed.join_spec import KeyedJoin
from fencepost.core.keyed.keyed_table import KeyedTable
from fencepost.core.space.addresses import V4, parse_address
from fencepost.core.storage.objects import keys_key
from fencepost.core.versions.build import FamilyRanges
from fencepost.core.versions.history import Event, Timeline
from fencepost.errors import Unavailable
from fencepost.http.app import HttpApi, create_app
from fencepost.model import VersionInfo
from fencepost.observability import Observability
from fencepost.reading.answers import FOUND
from fencepost.reading.keyed_tables import KeyedTables
from fencepost.reading.lookup import Lookup
from fencepost.settings import CacheLimits, LookupSettings, TableSettings
from tests.fakes.bucket import FakeBucket
from tests.fakes.kernel import Faults
from tests.fakes.ranges import MemoryStore
from tests.support import LambdaContext, event
from tests.support.app_calls import get_json

ROWS = [("1.0.0.0", "1.0.0.255", "13335"), ("8.8.8.0", "8.8.8.255", "AS15169"), ("9.9.9.0", "9.9.9.255", "64512")]
JOIN = KeyedJoin("as-names", "asn", ("name", "country"), "as_")


def _names(*rows: tuple[str, str, str]) -> KeyedTable:
    return KeyedTable("asn", "asn", ("name", "country"), {asn: (name, cc) for asn, name, cc in rows})


def _ranges() -> dict[int, FamilyRanges]:
    ranges = FamilyRanges(V4)
    for start, end, asn in ROWS:
        ranges.add(parse_address(start)[1], parse_address(end)[1], (asn,))
    return {V4: ranges}


class _Timelines(_NoListings):
    """The histories ``as_of`` reads: each dataset's switches, as the loader records them."""

    def __init__(self) -> None:
        self.events: dict[str, list[Event]] = {}

    def get_timeline(self, dataset: str) -> Timeline:
        return Timeline(self.events.get(dataset, []))


class _Service:
    def __init__(self, *, keyed_bytes: int | None = None, ttl: float = 0.0) -> None:
        self.store = MemoryStore()
        self.timelines = _Timelines()
        self.bucket = CountingBucket({})
        self.store.publish("asn", 1, _ranges(), ["asn"], keyed_joins=(JOIN,))
        limits = CacheLimits() if keyed_bytes is None else CacheLimits(keyed_bytes=keyed_bytes)
        settings = LookupSettings(table=TableSettings("t"), caches=limits, default_dataset="asn")
        obs = Observability(service="fencepost-lookup", tracing=False)
        lookup = Lookup(self.store, ttl, limits=limits)
        self.api: HttpApi = create_app(settings, lookup, self.timelines, obs, files=lambda: self.bucket)

    def names(self, version: int, table: KeyedTable, at: float = 0.0) -> None:
        _, objects = self.store.publish_keyed("as-names", version, table)
        self.bucket.objects.update(objects)
        self.timelines.events.setdefault("as-names", []).append(Event(at, version))

    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        request = event("lookup-post", body=json.dumps(body), isBase64Encoded=False)
        response = self.api.handle(request, LambdaContext())
        assert response["statusCode"] == 200, response["body"]
        answer: dict[str, Any] = json.loads(response["body"])
        return answer

    def get(self, path: str = "/lookup", status: int = 200, **query: str) -> dict[str, Any]:
        return get_json(self.api, path, status, **query)


def test_the_joined_columns_come_from_the_live_keyed_version_and_follow_a_new_one() -> None:
    service = _Service()
    service.names(1, _names(("13335", "CLOUDFLARENET", "US"), ("15169", "GOOGLE", "US")))
    first = service.get(ip="1.0.0.1")
    assert list(first) == [name for name in FOUND if name in first]  # where the declared shape places ``joined``
    assert first["data"] == {"asn": "13335", "as_name": "CLOUDFLARENET", "as_country": "US"}
    assert first["joined"] == [{"dataset": "as-names", "version": 1, "on": "asn", "key": "13335", "found": True}]
    assert service.get(ip="8.8.8.8")["data"]["as_name"] == "GOOGLE"  # "AS15169" is AS number 15169
    service.names(2, _names(("13335", "CLOUDFLARE-2", "US")))
    second = service.get(ip="1.0.0.1")
    assert second["version"] == first["version"] == 1  # the range dataset was not built again
    assert second["data"]["as_name"] == "CLOUDFLARE-2"
    assert second["joined"][0]["version"] == 2
    gone = service.get(ip="8.8.8.8")
    assert gone["data"]["as_name"] is None
    assert gone["joined"][0]["found"] is False


def test_a_key_the_table_lacks_or_a_value_that_is_no_key_joins_nulls() -> None:
    service = _Service()
    service.names(1, _names(("13335", "CLOUDFLARENET", "US")))
    missing = service.get(ip="9.9.9.9")
    assert missing["data"] == {"asn": "64512", "as_name": None, "as_country": None}
    assert missing["joined"][0] | {"key": "64512", "found": False} == missing["joined"][0]


def test_an_unloaded_keyed_dataset_never_fails_the_lookup() -> None:
    service = _Service()
    body = service.get(ip="1.0.0.1")
    assert body["data"] == {"asn": "13335", "as_name": None, "as_country": None}
    assert body["joined"][0]["error"]["code"] == "UNKNOWN_DATASET"
    assert body["joined"][0]["version"] is None


def test_a_table_over_the_cache_budget_is_not_joined_and_says_which_setting() -> None:
    service = _Service(keyed_bytes=2048)
    service.names(1, _names(*((str(asn), f"NAME-{asn}", "US") for asn in range(1, 200))))
    body = service.get(ip="1.0.0.1")
    assert body["data"]["as_name"] is None
    assert "KEYED_CACHE_BYTES" in body["joined"][0]["error"]["message"]


def test_a_warm_joined_lookup_makes_one_query_and_no_get() -> None:
    service = _Service(ttl=3600.0)
    service.names(1, _names(("13335", "CLOUDFLARENET", "US")))
    service.get(ip="1.0.0.1")
    queries, gets = service.store.queries, service.bucket.gets
    for octet in range(2, 40):
        assert service.get(ip=f"8.8.8.{octet}")["data"]["as_name"] is None
        assert service.get(ip=f"1.0.0.{octet}")["data"]["as_name"] == "CLOUDFLARENET"
    assert service.bucket.gets == gets  # the table was read once
    assert service.store.queries - queries <= 1  # the range cache answers the rest; never a read for the join


def test_the_entity_tag_changes_with_the_keyed_version() -> None:
    service = _Service()
    service.names(1, _names(("13335", "CLOUDFLARENET", "US")))

    def tag() -> str:
        request = event("lookup-get", queryStringParameters={"ip": "1.0.0.1"})
        return str(service.api.handle(request, LambdaContext())["headers"]["ETag"])

    before = tag()
    assert tag() == before
    service.names(2, _names(("13335", "OTHER", "US")))
    assert tag() != before


@pytest.mark.parametrize("path", ["/lookup"])
def test_a_keyed_dataset_is_not_looked_up_by_address(path: str) -> None:
    service = _Service()
    service.names(1, _names(("13335", "CLOUDFLARENET", "US")))
    body = service.get(path, 400, ip="1.0.0.1", dataset="as-names")
    assert body["error"]["code"] == "INVALID_REQUEST"
    assert "/datasets/as-names/keys/" in body["error"]["message"]
    several = service.get(path, ip="1.0.0.1", dataset="asn,as-names")
    assert several["answers"][0]["data"]["as_name"] == "CLOUDFLARENET"
    assert several["answers"][1]["error"]["code"] == "INVALID_REQUEST"


def test_a_key_is_read_from_the_live_keyed_version_whatever_its_form() -> None:
    service = _Service()
    service.names(1, _names(("13335", "CLOUDFLARENET", "US")))
    for key in ("13335", "AS13335", "as013335"):
        row = service.get(f"/datasets/as-names/keys/{key}")
        assert row == {
            "dataset": "as-names",
            "version": 1,
            "key": "13335",
            "data": {"asn": "13335", "name": "CLOUDFLARENET", "country": "US"},
        }
    missing = service.get("/datasets/as-names/keys/64512", 404)
    assert missing["error"]["code"] == "NOT_FOUND"
    assert missing["key"] == "64512"
    assert service.get("/datasets/as-names/keys/ASX", 400)["error"]["code"] == "INVALID_REQUEST"
    assert service.get("/datasets/asn/keys/13335", 400)["error"]["message"].endswith("it has ranges, not keys")
    assert service.get("/datasets/nothing/keys/13335", 404)["error"]["code"] == "UNKNOWN_DATASET"


def test_as_of_joins_the_keyed_version_live_at_that_instant() -> None:
    service = _Service()
    service.timelines.events["asn"] = [Event(1_000_000_000.0, 1)]  # 2001-09-09: the range version, live since
    service.names(1, _names(("13335", "OLD-NAME", "US")), at=1_600_000_000.0)  # 2020-09-13
    service.names(2, _names(("13335", "NEW-NAME", "US")), at=1_700_000_000.0)  # 2023-11-14
    then = service.get(ip="1.0.0.1", as_of="2021-01-01T00:00:00Z")
    assert then["data"]["as_name"] == "OLD-NAME"
    assert then["joined"][0]["version"] == 1
    now = service.get(ip="1.0.0.1", as_of="2024-01-01T00:00:00Z")
    assert now["data"]["as_name"] == "NEW-NAME"
    before = service.get(ip="1.0.0.1", as_of="2019-01-01T00:00:00Z")  # no keyed version yet: the range answers
    assert before["data"]["as_name"] is None
    assert before["joined"][0]["error"]["code"] == "NO_VERSION_AT"
    assert service.get("/datasets/as-names/keys/13335", as_of="2021-01-01T00:00:00Z")["data"]["name"] == "OLD-NAME"
    assert service.get("/datasets/as-names/keys/13335", version="1")["data"]["name"] == "OLD-NAME"
    assert service.get("/datasets/as-names/keys/13335", version="7", status=404)["error"]["code"] == "NO_VERSION_AT"
    batch = service.post({"ips": ["1.0.0.1", "8.8.8.8"], "as_of": "2021-01-01T00:00:00Z"})
    assert [result["data"]["as_name"] for result in batch["results"]] == ["OLD-NAME", None]


def test_a_stored_table_that_inflates_past_the_budget_is_never_inflated_whole() -> None:
    service = _Service(keyed_bytes=1024 * 1024)
    service.names(1, _names(("13335", "CLOUDFLARENET", "US")))
    key = next(iter(service.bucket.objects))
    service.bucket.objects[key] = gzip.compress(b'{"format": 1, "rows": [' + b" " * 50_000_000 + b"]}")
    body = service.get(ip="1.0.0.1")
    assert body["data"]["as_name"] is None
    assert "larger than 1,048,576 bytes" in body["joined"][0]["error"]["message"]
    assert body["joined"][0]["error"]["code"] == "UNAVAILABLE"


def test_a_key_in_the_path_is_percent_decoded_as_the_route_says() -> None:
    service = _Service()
    table = KeyedTable("id", "text", ("owner",), {"Acme Corp/1": ("acme",), "Zürich": ("zh",), "50%": ("half",)})
    _, objects = service.store.publish_keyed("customers", 1, table)
    service.bucket.objects.update(objects)
    assert service.get("/datasets/customers/keys/Acme%20Corp%2F1")["data"] == {"id": "Acme Corp/1", "owner": "acme"}
    assert service.get("/datasets/customers/keys/Z%C3%BCrich")["key"] == "Zürich"
    assert service.get("/datasets/customers/keys/50%25")["data"]["owner"] == "half"
    bad = service.get("/datasets/customers/keys/%FF", 400)["error"]["message"]
    assert bad == "the key is not percent-encoded UTF-8"


def test_a_stored_table_larger_than_the_budget_is_read_no_further_and_names_the_setting() -> None:
    # Its gzip'd bytes alone exceed what its text may hold: a lookup container reads no more of it than the budget
    # (the bucket refuses a larger read, as S3's adapter does), and joins say why
    bucket = FakeBucket(Faults())
    bucket.put_object(keys_key("as-names", 1), random.Random(1).randbytes(2 * 1024 * 1024))
    tables = KeyedTables(lambda: bucket, max_bytes=1024 * 1024)
    with pytest.raises(Unavailable, match=r"KEYED_CACHE_BYTES\): keyed dataset 'as-names' is not joined"):
        tables.table(VersionInfo("as-names", 1, ("asn", "name"), {}, keyed="asn"))


def test_a_keyed_dataset_has_no_ranges_to_list_and_says_so() -> None:
    service = _Service()
    service.names(1, _names(("13335", "CLOUDFLARENET", "US")))
    for query in ({}, {"within": "1.0.0.0/8"}):
        body = service.get("/ranges", 400, dataset="as-names", **query)
        assert body["error"]["code"] == "INVALID_REQUEST"
        assert "/datasets/as-names/keys/" in body["error"]["message"]


def test_a_diff_between_keyed_versions_points_to_their_load_diff() -> None:
    service = _Service()
    service.names(1, _names(("13335", "CLOUDFLARENET", "US")), at=1_600_000_000.0)
    service.names(2, _names(("13335", "OTHER", "US")), at=1_700_000_000.0)
    body = service.get("/datasets/as-names/diff", 400, **{"from": "1", "to": "2"})
    assert body["error"]["message"] == (
        "version 1 of dataset 'as-names' is a table of keys, not ranges: GET /datasets/as-names/diff?version=1 "
        "counts the keys its build added, removed and changed"
    )
