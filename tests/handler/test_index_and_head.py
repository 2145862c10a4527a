"""``GET /`` says what the API serves, and ``HEAD`` answers every GET route as GET does, without the body."""

from __future__ import annotations

import json

import pytest

from fencepost.bootstrap.lookup_wiring import LookupFunction
from fencepost.http.routes import ROUTES
from tests.support import LambdaContext, event
from tests.support.handlers import call, lookup_on_moto

GETS = ["index-get", "console-get", "lookup-get", "lookup-get-not-found", "datasets-list", "openapi", "unknown-path"]


def test_the_root_lists_every_documented_route_the_console_and_the_default_dataset(
    lookup_handler: LookupFunction,
) -> None:
    status, headers, body = call(lookup_handler, "index-get")

    assert status == 200
    assert headers["cache-control"] == "public, max-age=300"
    assert (body["service"], body["console"], body["openapi"]) == ("fencepost", "/console", "/openapi.json")
    assert body["default_dataset"] == "default"
    listed = [(route["method"], route["path"]) for route in body["routes"]]
    assert listed == [(route.method, route.openapi_path) for route in ROUTES if route.documented]
    assert ("GET", "/lookup") in listed
    assert all(route["summary"] for route in body["routes"])


def test_the_root_names_the_default_dataset_the_function_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    with lookup_on_moto(monkeypatch, [], DEFAULT_DATASET="sample") as module:
        _, _, body = call(module, "index-get")

    assert body["default_dataset"] == "sample"


@pytest.mark.parametrize("name", GETS)
def test_head_answers_as_get_without_a_body(lookup_handler: LookupFunction, name: str) -> None:
    get = event(name)
    head = json.loads(json.dumps(get))
    head["requestContext"]["http"]["method"] = "HEAD"

    got = lookup_handler.handler(get, LambdaContext())
    headed = lookup_handler.handler(head, LambdaContext())

    assert headed["statusCode"] == got["statusCode"]
    assert headed["body"] == ""
    assert not headed["isBase64Encoded"]
    same = {"Content-Type", "Cache-Control", "ETag", "Content-Security-Policy", "Content-Encoding", "Allow"}
    assert {k: v for k, v in headed["headers"].items() if k in same} == {
        k: v for k, v in got["headers"].items() if k in same
    }


def test_head_of_the_console_is_its_page_without_the_page(lookup_handler: LookupFunction) -> None:
    answer = lookup_handler.handler(event("console-head"), LambdaContext())

    assert answer["statusCode"] == 200
    assert answer["body"] == ""
    assert answer["headers"]["Content-Type"].startswith("text/html")
    assert "require-trusted-types-for 'script'" in answer["headers"]["Content-Security-Policy"]
