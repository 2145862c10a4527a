"""Conditional GET lookups through the real entry point on moto's DynamoDB: ETag and Last-Modified on found and
NOT_FOUND answers, the same tag in every container, a new one with a new version, 304 without any Query; batch
answers and other errors carry neither; the local HTTP front passes If-None-Match through."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest

from fencepost.aws.dynamo.serving import pointer_item
from fencepost.bootstrap.lookup_wiring import LookupFunction, lookup_function
from fencepost.errors import DependencyUnavailable
from fencepost.model import LivePointer
from local.http import serve
from tests.support import LambdaContext, event, family_ranges, publish
from tests.support.handlers import GEO_ROWS

LIVE_SINCE = 1795255200.0  # Sat, 21 Nov 2026 10:00:00 GMT
LIVE_SINCE_TEXT = "Sat, 21 Nov 2026 10:00:00 GMT"


def get(
    module: LookupFunction, name: str = "lookup-get", if_none_match: str | None = None, **changes: Any
) -> dict[str, Any]:
    ev = event(name, **changes)
    if if_none_match is not None:
        ev["headers"] = {**ev["headers"], "if-none-match": if_none_match}
    response: dict[str, Any] = module.handler(ev, LambdaContext())
    response["headers"] = {k.lower(): v for k, v in response.get("headers", {}).items()}
    return response


def container() -> LookupFunction:
    """A new instance of the lookup function (a cold container): nothing cached."""
    return lookup_function()


@pytest.fixture
def handler(lookup_handler: LookupFunction) -> LookupFunction:
    """The lookup function, with ``geo``'s pointer knowing since when version 3 is live (as a switch writes it).

    Its range cache is off (``lookup_handler``), so that a repeated lookup makes its Query and a 304 saves it."""
    lookup_handler.tables.table.put(pointer_item("geo", LivePointer("geo", 3, LIVE_SINCE)))
    return container()


@pytest.fixture
def queries(handler: LookupFunction) -> Iterator[list[str]]:
    """The range Queries every container makes from now on (they share one client's events: counted once each)."""
    made: list[str] = []

    def count(**_: Any) -> None:
        made.append("Query")

    events = handler.tables.table.client.meta.events
    events.register("before-call.dynamodb.Query", count)
    yield made
    events.unregister("before-call.dynamodb.Query", count)


def test_found_and_not_found_answers_carry_etag_and_last_modified(handler: LookupFunction) -> None:
    found = get(handler)
    missing = get(handler, "lookup-get-not-found")
    assert (found["statusCode"], missing["statusCode"]) == (200, 404)
    assert found["headers"]["etag"].startswith('W/"')
    assert found["headers"]["last-modified"] == LIVE_SINCE_TEXT
    assert missing["headers"]["etag"].startswith('W/"')
    assert missing["headers"]["last-modified"] == LIVE_SINCE_TEXT
    assert json.loads(missing["body"])["error"]["code"] == "NOT_FOUND"


def test_the_same_url_has_the_same_etag_in_every_container(handler: LookupFunction) -> None:
    first = get(handler)["headers"]["etag"]
    assert get(container())["headers"]["etag"] == first
    assert get(handler, "lookup-get-not-found")["headers"]["etag"] == first  # the same dataset and version


def test_a_new_live_version_changes_the_etag(handler: LookupFunction) -> None:
    before = get(handler)["headers"]["etag"]
    publish(handler.tables, "geo", 4, family_ranges(GEO_ROWS), ["country"])
    after = get(container())
    assert after["headers"]["etag"] != before
    assert json.loads(after["body"])["version"] == 4
    # A rollback to version 3 answers as version 3 did: the tag is version 3's again, Last-Modified moves on.
    handler.tables.table.put(pointer_item("geo", LivePointer("geo", 3, LIVE_SINCE + 60)))
    rolled = get(container())
    assert rolled["headers"]["etag"] == before
    assert rolled["headers"]["last-modified"] == "Sat, 21 Nov 2026 10:01:00 GMT"


def test_a_last_modified_is_left_out_when_the_pointer_does_not_know_it(lookup_handler: LookupFunction) -> None:
    response = get(lookup_handler)  # the fixture's pointers carry no live_since
    assert "etag" in response["headers"]
    assert "last-modified" not in response["headers"]


@pytest.mark.parametrize("form", ["{tag}", '"other", {tag}', "{opaque}", "*"])
def test_if_none_match_answers_304_without_any_query(handler: LookupFunction, queries: list[str], form: str) -> None:
    warm = get(handler)
    tag = warm["headers"]["etag"]
    assert queries  # the version's header and the range were read
    queries.clear()
    assert get(handler)["statusCode"] == 200
    assert queries == ["Query"]  # warm: the one range Query
    response = get(handler, if_none_match=form.format(tag=tag, opaque=tag.removeprefix("W/")))
    assert response["statusCode"] == 304
    assert response["body"] == ""
    assert response["headers"]["etag"] == tag
    assert response["headers"]["cache-control"] == warm["headers"]["cache-control"] == "public, max-age=120"
    assert response["headers"]["last-modified"] == LIVE_SINCE_TEXT
    assert "content-type" not in response["headers"]
    assert queries == ["Query"]  # none for the 304


def test_a_cold_container_answers_304_reading_only_the_live_pointer(
    handler: LookupFunction, queries: list[str]
) -> None:
    tag = get(handler)["headers"]["etag"]
    queries.clear()
    assert get(container(), if_none_match=tag)["statusCode"] == 304
    assert queries == []


def test_a_stale_tag_gets_the_full_answer(handler: LookupFunction) -> None:
    response = get(handler, if_none_match='W/"0123456789abcdef0123", garbage')
    assert response["statusCode"] == 200
    assert json.loads(response["body"])["data"] == {"country": "CN"}


def test_ip_me_tags_depend_on_the_callers_address(handler: LookupFunction) -> None:
    def me(source_ip: str, if_none_match: str | None = None) -> dict[str, Any]:
        ev = event("lookup-get-me")
        ev["requestContext"]["http"]["sourceIp"] = source_ip
        return get(handler, "lookup-get-me", if_none_match, requestContext=ev["requestContext"])

    first, again, other = me("1.0.32.5"), me("1.0.32.5"), me("1.0.32.6")
    assert first["headers"]["etag"] == again["headers"]["etag"] != other["headers"]["etag"]
    assert first["headers"]["cache-control"] == "private, max-age=120"
    assert me("1.0.32.6", first["headers"]["etag"])["statusCode"] == 200  # another caller's tag does not match
    revalidated = me("1.0.32.5", first["headers"]["etag"])
    assert revalidated["statusCode"] == 304
    assert revalidated["headers"]["cache-control"] == "private, max-age=120"


@pytest.mark.parametrize(
    "name",
    ["lookup-get-invalid-ip", "lookup-get-missing-ip", "lookup-get-unknown-dataset", "lookup-get-invalid-dataset"],
)
def test_other_errors_carry_no_validators_and_are_never_304(handler: LookupFunction, name: str) -> None:
    response = get(handler, name, if_none_match="*")
    assert response["statusCode"] in (400, 404)
    assert json.loads(response["body"])["error"]["code"] != "NOT_FOUND"
    assert "etag" not in response["headers"]
    assert "last-modified" not in response["headers"]


def test_an_unavailable_store_answers_503_without_validators(
    handler: LookupFunction, monkeypatch: pytest.MonkeyPatch
) -> None:
    def throttled(*_: Any, **__: Any) -> None:
        raise DependencyUnavailable("DynamoDB query failed (ThrottlingException); retry shortly")

    monkeypatch.setattr(handler.tables, "find", throttled)
    response = get(handler)
    assert response["statusCode"] == 503
    assert "etag" not in response["headers"]
    assert "last-modified" not in response["headers"]


def test_batch_answers_carry_neither(handler: LookupFunction) -> None:
    response = get(handler, "lookup-post")
    assert response["statusCode"] == 200
    assert "etag" not in response["headers"]
    assert "last-modified" not in response["headers"]
    assert response["headers"]["cache-control"] == "no-store"


def test_the_direct_path_answers_304_exactly_as_the_resolver(handler: LookupFunction) -> None:
    ev = event("lookup-get")
    ev["headers"] = {**ev["headers"], "if-none-match": get(handler)["headers"]["etag"]}
    direct = handler.api.handle(ev, LambdaContext())
    assert direct["statusCode"] == 304
    assert direct == handler.api.resolver.resolve(ev, LambdaContext())  # type: ignore[arg-type]


def test_the_local_http_front_passes_if_none_match_through(handler: LookupFunction) -> None:
    server = serve(lambda: handler.handler, "127.0.0.1", 0)
    try:
        connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
        connection.request("GET", "/lookup?ip=1.0.32.5&dataset=geo")
        first = connection.getresponse()
        assert (first.status, json.loads(first.read())["data"]) == (200, {"country": "CN"})
        tag = first.getheader("etag")
        assert tag is not None
        connection.request("GET", "/lookup?ip=1.0.32.5&dataset=geo", headers={"If-None-Match": tag})
        second = connection.getresponse()
        assert (second.status, second.read(), second.getheader("etag")) == (304, b"", tag)
        connection.close()
    finally:
        server.shutdown()
        server.server_close()


def test_the_document_describes_the_validators_and_the_304(handler: LookupFunction) -> None:
    operation = json.loads(get(handler, "openapi")["body"])["paths"]["/lookup"]["get"]
    assert "If-Modified-Since` is not honoured" in operation["description"]
    responses = operation["responses"]
    assert set(responses["304"]["headers"]) == {"Cache-Control", "ETag", "Last-Modified"}
    assert "content" not in responses["304"]
    assert {"ETag", "Last-Modified"} <= set(responses["200"]["headers"]) & set(responses["404"]["headers"])
    assert {"name": "If-None-Match", "in": "header"}.items() <= operation["parameters"][-1].items()
