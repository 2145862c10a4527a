"""How lookups reach the lookup function: an API Gateway HTTP API (the default) or a Lambda function URL.

Both deliver the same payload format 2.0 event to the same function. They differ in price and in how they throttle:

- ``http-api``: $1.00 per million requests on top of Lambda's, a stage throttle (``rateLimit``, ``burstLimit``),
  JSON access logs, an IAM authorizer with ``-c auth=iam``.
- ``function-url``: no charge of its own, no stage throttle and no access log. The function's reserved concurrency
  (``lookupConcurrency``) is the throttle: at most that many lookups run at once, and a request beyond them is
  answered ``429 Too Many Requests`` by Lambda. ``-c auth=iam`` makes the URL's auth type ``AWS_IAM``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from infra.context import ContextGetter, SettingsError, choice, given, optional_int, switch, text


class Front(StrEnum):
    HTTP_API = "http-api"
    FUNCTION_URL = "function-url"


# The function URL front's default reserved concurrency. A warm lookup takes about 1 ms when the range cache answers
# and a few ms when it makes its Query, so 20 environments serve several thousand lookups a second; a runaway
# client gets 429s instead of an unbounded bill. Reserving takes these 20 from the account's unreserved pool (Lambda
# keeps at least 100 unreserved, so the account's concurrency limit must be at least 120).
FUNCTION_URL_CONCURRENCY: Final = 20
MAX_CONCURRENCY: Final = 10_000
# Context keys only the HTTP API front reads: refused with the function URL front, where they would be ignored.
HTTP_API_KEYS: Final = ("rateLimit", "burstLimit")


@dataclass(frozen=True, slots=True)
class FrontSettings:
    front: Front = Front.HTTP_API
    reserved_concurrency: int | None = None  # None: none reserved (the account's unreserved pool)
    snap_start: bool = False  # SnapStart on published versions; the front then calls the ``live`` alias

    @classmethod
    def from_context(cls, get: ContextGetter) -> FrontSettings:
        front = choice(get, "front", Front, Front.HTTP_API)
        if front is Front.FUNCTION_URL:
            ignored = [key for key in HTTP_API_KEYS if given(get(key))]
            if ignored:
                raise SettingsError(
                    f"{' and '.join(ignored)} set the HTTP API stage's throttle; a function URL has no stage. With "
                    "-c front=function-url the throttle is the lookup function's reserved concurrency: set "
                    f"-c lookupConcurrency=N (default {FUNCTION_URL_CONCURRENCY}) instead."
                )
        default = FUNCTION_URL_CONCURRENCY if front is Front.FUNCTION_URL else None
        return cls(front, _concurrency(get, default), switch(get, "snapStart", default=False))


def _concurrency(get: ContextGetter, default: int | None) -> int | None:
    """``lookupConcurrency``: a whole number of environments, or ``off`` for none reserved."""
    if text(get, "lookupConcurrency", "").lower() in ("off", "none"):
        return None
    try:
        value = optional_int(get, "lookupConcurrency", low=1, high=MAX_CONCURRENCY)
    except SettingsError as error:
        raise SettingsError(f"{error} (or off: no concurrency reserved)") from None
    return default if value is None else value


DEFAULT_FRONT: Final = FrontSettings()  # the HTTP API, nothing reserved, no SnapStart
