"""DynamoDB's faults, as a hook of the DynamoDB front (``local.proxy``), before the capacity emulator if any.

- ``dynamodb.error``: the request is not forwarded; it is answered ``InternalServerError`` (500) or
  ``ServiceUnavailable`` (503), half each, in DynamoDB's JSON error format (SDKs retry both).
- ``dynamodb.slow``: the request waits the spike's delay, then goes on.
- ``dynamodb.reset``: the request is forwarded (a write is made), then its answer is cut halfway by a TCP reset:
  the client cannot know whether its write was made, as after a real reset.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Callable
from typing import Final

from local.faults.dice import Dice
from local.faults.spec import FaultSpec
from local.proxy import Hook, Request, Response

ERRORS: Final = {
    500: ("InternalServerError", "Internal server error"),
    503: ("ServiceUnavailable", "The service is unavailable"),
}


def error_answer(status: int) -> Response:
    kind, message = ERRORS[status]
    body = json.dumps(
        {"__type": f"com.amazonaws.dynamodb.v20120810#{kind}", "message": f"{message} (injected: FAULTS)"},
        separators=(",", ":"),
    ).encode()
    headers = {"Content-Type": "application/x-amz-json-1.0", "x-amz-crc32": str(zlib.crc32(body))}
    return Response(status, headers, body)


class DynamoDBFaults(Hook):
    def __init__(self, spec: FaultSpec, dice: Dice, armed: Callable[[], bool]) -> None:
        self.spec, self.dice, self.armed = spec, dice, armed

    def on_request(self, request: Request) -> Response | None:
        if not self.armed():
            return None
        spec, dice = self.spec, self.dice
        dice.count("dynamodb.requests")
        if dice.roll("dynamodb.error", spec.dynamodb_error):
            status = 500 if dice.pick("dynamodb.error", 0, 1) == 0 else 503
            dice.count(f"dynamodb.error.{status}")
            return error_answer(status)
        if dice.roll("dynamodb.slow", spec.dynamodb_slow):
            dice.count("dynamodb.slow")
            time.sleep(spec.dynamodb_delay)
        if dice.roll("dynamodb.reset", spec.dynamodb_reset):
            request.notes["dynamodb.reset"] = True
        return None

    def on_response(self, request: Request, response: Response) -> Response:
        if request.notes.get("dynamodb.reset"):
            self.dice.count("dynamodb.reset")
            response.cut_at, response.reset = len(response.body) // 2, True
        return response
