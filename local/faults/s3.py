"""S3's faults, as a hook of the S3 front (``local.proxy``) before moto's server; SQS and Secrets Manager, which
share moto's port, pass untouched.

- ``s3.error``: the request is not forwarded; it is answered ``SlowDown`` (503) or ``InternalError`` (500), half
  each, in S3's XML error format (SDKs retry both).
- ``s3.cut``: a GET is forwarded, and its answer is sent with the whole body's ``Content-Length`` but only part of
  the body (from none of it to all but its last byte), then the connection is closed.
"""

from __future__ import annotations

import re
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Final
from urllib.parse import unquote

from local.faults.dice import Dice
from local.faults.spec import FaultSpec
from local.proxy import Hook, Request, Response

ERRORS: Final = {
    503: ("SlowDown", "Please reduce your request rate."),
    500: ("InternalError", "We encountered an internal error. Please try again."),
}
# The service a request signs for (SigV4's credential scope), in its Authorization header or a presigned query.
_SCOPE: Final = re.compile(r"Credential=[^/,\s]+/\d{8}/[^/]+/([^/]+)/aws4_request")


def service_of(request: Request) -> str:
    """``s3``, ``sqs``, ``secretsmanager``...: unsigned requests are S3's unless they carry a JSON target."""
    found = _SCOPE.search(request.headers.get("authorization", "")) or _SCOPE.search(unquote(request.target))
    if found:
        return found.group(1)
    return "json" if "x-amz-target" in request.headers else "s3"


def error_answer(status: int, request: Request) -> Response:
    code, message = ERRORS[status]
    request_id = uuid.uuid4().hex[:16].upper()
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<Error><Code>{code}</Code><Message>{message} (injected: FAULTS)</Message>"
        f"<RequestId>{request_id}</RequestId></Error>"
    ).encode()
    headers = {"Content-Type": "application/xml", "x-amz-request-id": request_id}
    return Response(status, headers, b"" if request.method == "HEAD" else body)


class S3Faults(Hook):
    def __init__(self, spec: FaultSpec, dice: Dice, armed: Callable[[], bool]) -> None:
        self.spec, self.dice, self.armed = spec, dice, armed
        self.cut_paths: Counter[str] = Counter()  # the paths of the bodies cut short, for tests and reports

    def on_request(self, request: Request) -> Response | None:
        if not self.armed() or service_of(request) != "s3":
            return None
        spec, dice = self.spec, self.dice
        dice.count("s3.requests")
        if dice.roll("s3.error", spec.s3_error):
            status = 503 if dice.pick("s3.error", 0, 1) == 0 else 500
            dice.count(f"s3.error.{status}")
            return error_answer(status, request)
        if request.method == "GET" and dice.roll("s3.cut", spec.s3_cut):
            request.notes["s3.cut"] = True
        return None

    def on_response(self, request: Request, response: Response) -> Response:
        if request.notes.get("s3.cut") and response.status in (200, 206) and response.body:
            self.dice.count("s3.cut")
            self.cut_paths[request.path] += 1
            response.cut_at = self.dice.pick("s3.cut", 0, len(response.body) - 1)
        return response
