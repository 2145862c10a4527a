"""Hostile and malformed requests to the lookup function: a request and the status and error code it must get
(``Hostile``, made by ``ip``, ``dataset``, ``post``, ``path`` and ``fields``), the event that sends it, and a
response's body as the Lambda runtime sends it."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from tests.support import event


class Hostile(NamedTuple):
    name: str
    method: str
    path: str
    query: dict[str, str] | None
    body: str | None
    status: int
    code: str
    base64: bool = False


def ip(name: str, value: str, code: str = "INVALID_IP") -> Hostile:
    return Hostile(name, "GET", "/lookup", {"ip": value, "dataset": "geo"}, None, 400, code)


def dataset(name: str, value: str, status: int = 400, code: str = "INVALID_REQUEST") -> Hostile:
    return Hostile(name, "GET", "/lookup", {"ip": "1.0.32.5", "dataset": value}, None, status, code)


def post(name: str, body: str, status: int = 400, code: str = "INVALID_REQUEST", *, b64: bool = False) -> Hostile:
    return Hostile(name, "POST", "/lookup", None, body, status, code, b64)


def path(name: str, method: str, raw_path: str, status: int, code: str) -> Hostile:
    return Hostile(name, method, raw_path, None, None, status, code)


def fields(name: str, value: str) -> Hostile:
    return Hostile(
        name, "GET", "/lookup", {"ip": "1.0.32.5", "dataset": "geo", "fields": value}, None, 400, "INVALID_FIELDS"
    )


def hostile_event(case: Hostile) -> dict[str, Any]:
    ev = event("lookup-get")
    ev["rawPath"] = ev["requestContext"]["http"]["path"] = case.path
    ev["requestContext"]["http"]["method"] = case.method
    ev.pop("queryStringParameters", None)
    if case.query is not None:
        ev["queryStringParameters"] = case.query
    if case.body is not None:
        ev["body"] = case.body
        ev["isBase64Encoded"] = case.base64
    return ev


def as_sent(response: dict[str, Any]) -> str:
    """The body, after the whole response was encoded as the Lambda runtime sends it (JSON, non-ASCII as UTF-8):
    this fails on a lone surrogate anywhere in it."""
    sent = json.loads(json.dumps(response, ensure_ascii=False).encode("utf-8"))
    body: str = sent["body"]
    return body
