"""One route table (``fencepost.http.routes``): the app serves exactly its routes, answers 405 with their methods,
and the OpenAPI document describes exactly them, each with exactly the parameters and errors of its entry."""

from __future__ import annotations

import json
import re

import pytest
from pydantic import BaseModel

from fencepost.bootstrap.lookup_wiring import LookupFunction
from fencepost.http.openapi import schemas
from fencepost.http.routes import ROUTES, Route
from tests.support import LambdaContext, event
from tests.support.handlers import ERROR_CASES, ROUTED, call

DOCUMENTED = [route for route in ROUTES if route.documented]


def _served(module: LookupFunction) -> set[tuple[str, str]]:
    app = module.api.resolver
    return {(route.path, route.method) for route in app._static_routes + app._dynamic_routes}


def _entry(name: str) -> Route:
    """The table's entry for the route a sample event calls."""
    ev = event(name)
    path = re.sub(r"^/datasets/[^/]+", "/datasets/{name}", ev["rawPath"])
    method = ev["requestContext"]["http"]["method"]
    return next(route for route in ROUTES if (route.openapi_path, route.method) == (path, method))


def test_the_app_serves_exactly_the_routes_of_the_table(lookup_handler: LookupFunction) -> None:
    table = [(route.path, route.method) for route in ROUTES]
    assert len(set(table)) == len(table)
    assert _served(lookup_handler) == set(table)


@pytest.mark.parametrize("path", sorted({route.path for route in ROUTES}))
def test_every_path_refuses_other_methods_and_lists_the_tables(lookup_handler: LookupFunction, path: str) -> None:
    ev = event("method-not-allowed")
    ev["rawPath"] = ev["requestContext"]["http"]["path"] = re.sub(r"<\w+>", "geo", path)
    response = lookup_handler.handler(ev, LambdaContext())
    assert response["statusCode"] == 405
    table = [route.method for route in ROUTES if route.path == path]
    assert response["headers"]["Allow"] == ", ".join(m for t in table for m in ((t, "HEAD") if t == "GET" else (t,)))


def test_the_document_describes_exactly_the_routes_the_app_serves(lookup_handler: LookupFunction) -> None:
    _, _, document = call(lookup_handler, "openapi")
    documented = {(path, method.upper()) for path, operations in document["paths"].items() for method in operations}
    undocumented = {route.path for route in ROUTES if not route.documented}  # the document itself, the console
    assert undocumented == {"/openapi.json", "/console", "/console/<asset>"}
    served = {
        (re.sub(r"<(\w+)>", r"{\1}", path), method)
        for path, method in _served(lookup_handler)
        if path not in undocumented
    }
    assert documented == served == {(route.openapi_path, route.method) for route in DOCUMENTED}


@pytest.mark.parametrize("route", DOCUMENTED, ids=[f"{route.method} {route.path}" for route in DOCUMENTED])
def test_each_route_is_documented_exactly_as_its_entry(lookup_handler: LookupFunction, route: Route) -> None:
    _, _, document = call(lookup_handler, "openapi")
    operation = document["paths"][route.openapi_path][route.method.lower()]
    assert operation["summary"] == route.summary
    responses = operation["responses"]
    successes = ("202", "303") if route.deferred else ("200",)  # a deferred route: being made, then made
    declared = {
        (int(status), code)
        for status, response in responses.items()
        if status not in (*successes, "304")  # 304: a conditional route's revalidation, not an error
        for code in response["description"].split(" / ")
    }
    assert declared == {(error.status, error.code) for error in route.errors} | {(500, "INTERNAL")}
    assert all(status in responses for status in successes)
    assert ("Cache-Control" in responses[successes[0]].get("headers", {})) == route.cached
    schema = responses[successes[0]]["content"]["application/json"]["schema"]
    refs = {part["$ref"].rsplit("/", 1)[-1] for part in schema.get("anyOf", [schema])}
    ok = getattr(schemas, route.ok or "")
    assert refs == ({ok.__name__} if isinstance(ok, type) else {member.__name__ for member in ok.__args__})
    assert ("304" in responses) == route.conditional
    headers = [parameter["name"] for parameter in operation.get("parameters", []) if parameter["in"] == "header"]
    assert headers == (["If-None-Match"] if route.conditional else [])
    parameters = {p["name"]: p for p in operation.get("parameters", []) if p["in"] != "header"}
    assert set(parameters) == {param.name for param in route.parameters}
    for param in route.parameters:
        assert (parameters[param.name]["in"], parameters[param.name]["required"]) == (param.location, param.required)
        assert parameters[param.name]["schema"] == {**param.schema, "description": param.description}
    assert ("requestBody" in operation) == (route.body is not None)


def test_the_table_names_only_models_that_exist() -> None:
    for route in ROUTES:
        for model in (route.body, route.ok):
            found = None if model is None else getattr(schemas, model)  # a model, or a union of models
            members = () if found is None else (found,) if isinstance(found, type) else found.__args__
            assert all(issubclass(member, BaseModel) for member in members)


@pytest.mark.parametrize(("name", "status", "code"), [case for case in ERROR_CASES if case[0] in ROUTED])
def test_every_error_a_route_gives_is_in_its_entry_and_the_document(
    lookup_handler: LookupFunction, name: str, status: int, code: str
) -> None:
    route = _entry(name)
    assert (status, code) in {(error.status, error.code) for error in route.errors}
    _, _, document = call(lookup_handler, "openapi")
    responses = document["paths"][route.openapi_path][route.method.lower()]["responses"]
    assert code in responses[str(status)]["description"]


def test_openapi_document_declares_the_routes_and_their_responses(lookup_handler: LookupFunction) -> None:
    status, _, document = call(lookup_handler, "openapi")
    assert status == 200
    paths = document["paths"]
    values = "/datasets/{name}/values/{column}"
    assert set(paths) == {
        "/",
        "/lookup",
        "/datasets",
        "/datasets/{name}",
        "/datasets/{name}/diff",
        "/ranges",
        values,
        values + "/{value}",
        "/datasets/{name}/export",
        "/datasets/{name}/versions",
        "/datasets/{name}/keys/{key}",
        "/enrich",
        "/enrich/{job}",
    }
    export = paths["/datasets/{name}/export"]["get"]["responses"]
    assert set(export) == {"202", "303", "400", "404", "410", "500", "503"}
    assert set(export["202"]["headers"]) == {"Retry-After"}
    assert set(export["303"]["headers"]) == {"Location"}
    assert set(paths[values]["get"]["responses"]) == {"200", "400", "404", "410", "500", "503"}
    assert set(paths[values + "/{value}"]["get"]["responses"]) == {"200", "400", "404", "410", "500", "503"}
    keys = paths["/datasets/{name}/keys/{key}"]["get"]["responses"]
    assert set(keys) == {"200", "400", "404", "410", "500", "503"}
    assert set(paths["/lookup"]) == {"get", "post"}
    assert set(paths["/lookup"]["get"]["responses"]) == {"200", "304", "400", "404", "410", "500", "503"}
    assert set(paths["/lookup"]["post"]["responses"]) == {"200", "400", "404", "410", "500", "503"}
    assert set(paths["/datasets/{name}/versions"]["get"]["responses"]) == {"200", "400", "404", "500", "503"}
    assert set(paths["/datasets"]["get"]["responses"]) == {"200", "500", "503"}
    assert set(paths["/ranges"]["get"]["responses"]) == {"200", "400", "404", "410", "500", "503"}
    assert set(paths["/datasets/{name}/diff"]["get"]["responses"]) == {"200", "400", "404", "410", "500", "503"}
    assert set(paths["/enrich"]["get"]["responses"]) == {"200", "400", "500", "503"}
    assert set(paths["/enrich/{job}"]["get"]["responses"]) == {"200", "400", "404", "500", "503"}
    assert "422" not in json.dumps(document)


def test_the_document_names_the_codes_a_batch_answers_per_address(lookup_handler: LookupFunction) -> None:
    _, _, document = call(lookup_handler, "openapi")
    batch_error = document["components"]["schemas"]["BatchError"]
    assert "RESPONSE_TOO_LARGE" in batch_error["description"]
    assert "RESPONSE_TOO_LARGE" in document["components"]["schemas"]["ErrorDetail"]["properties"]["code"]["description"]
    get = document["paths"]["/lookup"]["get"]["responses"]
    assert get["500"]["description"] == "INTERNAL / RESPONSE_TOO_LARGE"
