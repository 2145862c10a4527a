"""``POST /lookup``: its request body, read and checked, and its answer, built within the response budget."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fencepost.errors import BatchTooLarge, InvalidRequest, ResponseTooLarge
from fencepost.http.budget import ResponseBudget
from fencepost.http.lookup_params import dataset_list, parse_mode
from fencepost.http.responses import json_text
from fencepost.reading.answers import Mode
from fencepost.reading.fields import Selection, parse_list

# A full batch of the longest addresses is under 8 KB; anything far larger is refused before it is parsed.
MAX_BODY_BYTES = 64 * 1024


def request_body(raw: str | None, base64_encoded: bool) -> str:
    """The request body as text, bounded in size; a body API Gateway base64-encoded is decoded first."""
    text = raw or ""
    if len(text) > MAX_BODY_BYTES * 4 // 3 + 4:
        raise BatchTooLarge(f"the request body is larger than {MAX_BODY_BYTES} bytes")
    if base64_encoded:
        try:
            text = base64.b64decode(text, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise InvalidRequest("the request body is not UTF-8 JSON") from None
    if len(text.encode()) > MAX_BODY_BYTES:
        raise BatchTooLarge(f"the request body is larger than {MAX_BODY_BYTES} bytes")
    return text


@dataclass(frozen=True, slots=True)
class BatchAsk:
    """What a batch asks: its addresses, and either one dataset (``dataset``, today's answers) or a list of them
    (``datasets``, answers of several datasets, ``fencepost.reading.answers.combined`` and ``overlay``), with the
    ``mode`` that combines them."""

    ips: list[str]
    dataset: str | None = None
    datasets: tuple[str, ...] | None = None
    mode: Mode = Mode.ALL
    selection: Selection | None = None
    as_of: object = None  # as sent: checked with the request (``lookup_params.parse_past``)
    version: object = None


def batch_request(body: str) -> BatchAsk:
    """The body of ``POST /lookup``, checked field by field: ``{"ips": [...], "dataset": "..."}`` or
    ``{"ips": [...], "datasets": [...], "mode": "all" | "first"}``, and ``"fields": [...]`` (see
    ``fencepost.reading.fields``) in either."""
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):  # deeply nested JSON exhausts the parser's recursion
        raise InvalidRequest("the request body is not valid JSON") from None
    if not isinstance(document, dict):
        raise InvalidRequest('the body must be a JSON object {"ips": [...], "dataset": "..."}')
    unknown = sorted(set(document) - {"ips", "dataset", "datasets", "mode", "fields", "as_of", "version"})
    if unknown:
        raise InvalidRequest(
            f"unknown fields {unknown[:5]}: the body holds ips, dataset or datasets, mode, fields, as_of or version"
        )
    ips, dataset, datasets = document.get("ips"), document.get("dataset"), document.get("datasets")
    if ips is None:
        raise InvalidRequest('ips is missing: send {"ips": ["1.2.3.4", ...]}')
    if not isinstance(ips, list) or not all(isinstance(ip, str) for ip in ips):
        raise InvalidRequest("ips must be a list of strings")
    if not ips:
        raise InvalidRequest("ips must hold at least one address")
    if dataset is not None and not isinstance(dataset, str):
        raise InvalidRequest("dataset must be a string")
    if dataset is not None and datasets is not None:
        raise InvalidRequest("give dataset (one name) or datasets (a list), not both")
    if datasets is not None and not isinstance(datasets, list):
        raise InvalidRequest('datasets must be a list of names, such as ["geo", "asn"]')
    fields = document.get("fields")
    return BatchAsk(
        ips,
        dataset,
        None if datasets is None else dataset_list(datasets),
        parse_mode(document.get("mode")),
        None if fields is None else parse_list(fields),
        document.get("as_of"),
        document.get("version"),
    )


Result = tuple[str, Mapping[str, Any]]  # the address as sent, and its answer (a found range or an error)


def batch_answer(results: Sequence[Result], budget_bytes: int) -> str:
    """The body ``{"results": [...]}``, in request order, within ``budget_bytes``.

    When the full answers do not all fit, every element from the first that does not is answered
    ``RESPONSE_TOO_LARGE`` instead (the earlier ones stay complete), and the client sends those addresses again.
    """
    whole = json_text({"results": [answer for _, answer in results]})
    budget = ResponseBudget(budget_bytes)
    if budget.fits(whole):
        return whole
    refusal = ResponseTooLarge(
        f"the answers before this one fill the response budget of {budget_bytes} bytes: "
        "send this address again in another request"
    ).body()
    parts = budget.fit(
        results,
        full=lambda result: json_text(result[1]),
        brief=lambda result: json_text({"ip": result[0], "error": refusal}),
        frame='{"results":[]}',
    )
    return '{"results":[' + ",".join(parts) + "]}"
