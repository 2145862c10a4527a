"""How lookups reach the lookup function: an API Gateway HTTP API (the default) or a Lambda function URL.

Both deliver the same payload format 2.0 event to the same function. They differ in price and in how they throttle:

- ``http-api``: $1.00 per million requests on top of Lambda's, a stage throttle (``rateLimit``, ``burstLimit``),
  JSON access logs, an IAM authorizer with ``-c auth=iam``.
- ``function-url``: no charge of its own, no stage throttle and no access log. Nothing is reserved by default: the
  function runs in the account's unreserved concurrency, so a runaway public client is throttled only by the
  account's limit (and billed until then). ``-c lookupConcurrency=N`` reserves N environments, which caps it: a
  request beyond them is answered ``429 Too Many Requests`` by Lambda. ``-c auth=iam`` makes the URL's auth type
  ``AWS_IAM``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from infra.context import ContextGetter, SettingsError, choice, given, optional_int, switch, text


class Front(StrEnum):
    HTTP_API = "http-api"
    FUNCTION_URL = "function-url"


# Reserved concurrency is never the default: Lambda keeps at least 100 of an account's concurrency unreserved, and new
# accounts start with a reduced quota (as low as 10), so a default reservation makes a first deploy fail with
# "ReservedConcurrentExecutions ... decreases account's UnreservedConcurrentExecution below its minimum value".
# A reservation of N asks for an account limit of at least N + UNRESERVED_MINIMUM.
UNRESERVED_MINIMUM: Final = 100
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
                    "-c lookupConcurrency=N (none by default) instead."
                )
        return cls(front, _concurrency(get), switch(get, "snapStart", default=False))


def _concurrency(get: ContextGetter) -> int | None:
    """``lookupConcurrency``: a whole number of environments, or ``off`` (the default) for none reserved."""
    if text(get, "lookupConcurrency", "").lower() in ("off", "none"):
        return None
    try:
        return optional_int(get, "lookupConcurrency", low=1, high=MAX_CONCURRENCY)
    except SettingsError as error:
        raise SettingsError(f"{error} (or off: no concurrency reserved)") from None


DEFAULT_FRONT: Final = FrontSettings()  # the HTTP API, nothing reserved, no SnapStart
