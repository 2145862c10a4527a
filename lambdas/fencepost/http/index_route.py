"""``GET /``: what this API serves, for a person or a client that knows only its address: every route with its
summary (from the one route table), where the console and the OpenAPI document are, and the default dataset."""

from __future__ import annotations

from fencepost.http.responses import HttpResponse, json_response
from fencepost.http.routes import ROUTES

SERVICE = "fencepost"
CONSOLE, DOCUMENT = "/console", "/openapi.json"
CACHED = {"Cache-Control": "public, max-age=300"}  # changes only with a deploy, as the OpenAPI document


def answer_index(default_dataset: str) -> HttpResponse:
    routes = [
        {"method": route.method, "path": route.openapi_path, "summary": route.summary}
        for route in ROUTES
        if route.documented
    ]
    body = {
        "service": SERVICE,
        "console": CONSOLE,
        "openapi": DOCUMENT,
        "default_dataset": default_dataset,
        "routes": routes,
    }
    return json_response(200, body, CACHED)
