"""HTTP answers: JSON bodies that can always be sent, and errors mapped to their status, code and headers."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from fencepost.errors import MethodNotAllowed, ResponseTooLarge, ServiceError, Unavailable
from fencepost.http.budget import ResponseBudget, cost

NO_STORE = {"Cache-Control": "no-store"}
JSON = "application/json"


@dataclass(slots=True)
class HttpResponse:
    """An answer of the API: what the function returns for it, without Powertools (whose event handler costs ~50 ms
    of cold start: the app builds Powertools' router only for the rare routes, ``fencepost.http.app``)."""

    status_code: int
    body: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str | None = JSON
    base64: bool = False  # ``body`` is bytes in base64 (a compressed console file)

    def __post_init__(self) -> None:
        if self.content_type is not None:
            self.headers.setdefault("Content-Type", self.content_type)

    def payload(self) -> dict[str, Any]:
        """The answer as the HTTP API's payload format 2.0 (and a function URL) takes it."""
        return {
            "statusCode": self.status_code,
            "body": self.body,
            "isBase64Encoded": self.base64,
            "headers": self.headers,
            "cookies": [],
        }


def without_body(payload: dict[str, Any]) -> dict[str, Any]:
    """A payload's status and headers without its body: the answer to HEAD."""
    return {**payload, "body": "", "isBase64Encoded": False}


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_text(text: str) -> str:
    """``text`` as it can be sent: lone surrogates (JSON's ``"\ud800"`` parses to one) become U+FFFD.

    A body that cannot be encoded as UTF-8 would fail in the Lambda runtime, outside any error handling.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text)
    return text


def json_text(body: Any) -> str:
    """``body`` as compact JSON, with non-ASCII text as it is (lone surrogates still to be replaced)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def text_response(status: int, text: str, headers: dict[str, str]) -> HttpResponse:
    """A JSON answer whose body is already ``text``."""
    return HttpResponse(status, utf8_text(text), dict(headers))


def json_response(status: int, body: dict[str, Any], headers: dict[str, str]) -> HttpResponse:
    return text_response(status, json_text(body), headers)


def bounded_json_response(status: int, body: dict[str, Any], headers: dict[str, str], budget: int) -> HttpResponse:
    """A JSON answer that fits the response budget of ``budget`` bytes, or ``ResponseTooLarge``."""
    text = json_text(body)
    if not ResponseBudget(budget).fits(text):
        raise ResponseTooLarge(
            f"the answer is {cost(text)} bytes, more than the response budget of {budget} bytes "
            "(RESPONSE_BUDGET_BYTES): it cannot be sent"
        )
    return text_response(status, text, headers)


def error_response(error: ServiceError) -> HttpResponse:
    headers = dict(NO_STORE)
    if isinstance(error, Unavailable):
        headers["Retry-After"] = str(error.retry_after)
    if isinstance(error, MethodNotAllowed):
        headers["Allow"] = ", ".join(error.details["allow"])
        return json_response(error.status, {"error": error.body()}, headers)
    return json_response(error.status, {**error.details, "error": error.body()}, headers)
