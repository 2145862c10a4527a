"""The lookup function behind a Lambda function URL (``-c front=function-url``): the URL's own events.

A function URL sends payload format 2.0, as the HTTP API does, with its own request context (``accountId``
``anonymous`` without auth, the caller's IAM identity with ``AWS_IAM``) and a base64 body when the caller sends no
text content type. Each sample event in ``events/url-*.json`` answers what its HTTP API twin answers.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from fencepost.bootstrap.lookup_wiring import LookupFunction
from tests.support import LambdaContext, event


def _answer(module: LookupFunction, ev: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
    response = module.handler(ev, LambdaContext())
    headers = {k.lower(): v for k, v in response.get("headers", {}).items()}
    return response["statusCode"], headers, json.loads(response["body"])


@pytest.mark.parametrize(
    ("url_event", "api_event"), [("url-lookup-get", "lookup-get"), ("url-lookup-post", "lookup-post")]
)
def test_a_function_url_event_answers_as_its_http_api_twin(
    lookup_handler: LookupFunction, url_event: str, api_event: str
) -> None:
    status, headers, body = _answer(lookup_handler, event(url_event))
    twin_status, twin_headers, twin_body = _answer(lookup_handler, event(api_event))

    assert status == twin_status == 200
    assert body == twin_body
    assert headers["content-type"] == twin_headers["content-type"] == "application/json"


def test_the_get_event_finds_the_nested_range(lookup_handler: LookupFunction) -> None:
    status, _, body = _answer(lookup_handler, event("url-lookup-get"))

    assert status == 200
    assert (body["ip"], body["dataset"], body["data"]) == ("1.0.32.5", "geo", {"country": "CN"})
    assert body["match"]["network"] == "1.0.32.0/19"


def test_a_base64_body_is_decoded_like_a_text_one(lookup_handler: LookupFunction) -> None:
    encoded = event("url-lookup-post-base64")
    assert encoded["isBase64Encoded"] is True
    assert "content-type" not in encoded["headers"]

    status, _, body = _answer(lookup_handler, encoded)

    assert status == 200
    assert body == _answer(lookup_handler, event("url-lookup-post"))[2]
    assert [answer.get("error", {}).get("code") for answer in body["results"]][3] == "INVALID_IP"


def test_a_signed_iam_call_for_me_answers_the_callers_ipv6_address(lookup_handler: LookupFunction) -> None:
    ev = event("url-lookup-get-iam-me")
    assert ev["requestContext"]["authorizer"]["iam"]["userArn"].endswith(":user/lookups")

    status, _, body = _answer(lookup_handler, ev)

    assert status == 200
    assert body["ip"] == ev["requestContext"]["http"]["sourceIp"] == "2001:db8::7"
    assert body["data"] == {"country": "ZZ"}


def test_a_bad_base64_body_is_a_400_not_a_500(lookup_handler: LookupFunction) -> None:
    broken = event("url-lookup-post-base64", body="not base64 at all!!")

    status, _, body = _answer(lookup_handler, broken)

    assert status == 400
    assert body["error"]["code"] in ("INVALID_BODY", "INVALID_REQUEST")


def test_the_url_events_request_id_is_the_log_correlation_id(lookup_handler: LookupFunction) -> None:
    ev = event("url-lookup-get", queryStringParameters={"ip": "nonsense", "dataset": "geo"})
    ev["rawQueryString"] = "ip=nonsense&dataset=geo"
    stream = io.StringIO()
    lookup_handler.obs.logger.registered_handler.setStream(stream)  # type: ignore[attr-defined]
    lookup_handler.obs.logger.setLevel("INFO")  # a refusal is an INFO line

    assert _answer(lookup_handler, ev)[0] == 400
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["message"] for line in lines] == ["request refused", "access"]  # the access line last
    assert {line["correlation_id"] for line in lines} == {ev["requestContext"]["requestId"]}
