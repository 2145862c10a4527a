"""A GET of any route sent to an app made in memory (``fencepost.http.app.create_app``), its JSON answer read back."""

from __future__ import annotations

import json
from typing import Any

from fencepost.http.app import HttpApi
from tests.support import LambdaContext, event


def get_json(api: HttpApi, path: str, status: int = 200, **query: str) -> dict[str, Any]:
    """The answer of ``GET <path>?<query>``, which must have ``status``."""
    request = event("lookup-get", queryStringParameters=query)
    request["rawPath"] = request["requestContext"]["http"]["path"] = path
    response = api.handle(request, LambdaContext())
    assert response["statusCode"] == status, response["body"]
    body: dict[str, Any] = json.loads(response["body"])
    return body
