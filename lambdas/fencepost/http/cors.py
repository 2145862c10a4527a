"""Cross-origin requests: the one CORS policy of the API, and the answer to a browser's preflight.

On AWS, API Gateway applies this policy (``infra.lookup_api`` configures it from the constants here) and adds its
headers to every answer. A preflight is unsigned by definition, so with ``-c auth=iam`` an ``OPTIONS`` route without
authorization brings it to the function, which answers 204 with the same headers (API Gateway's own replace them
where it sets them); ``make run`` has no API Gateway, so there the function's are the ones the browser reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from fencepost.http.responses import HttpResponse

# Headers a browser may send (SigV4 ones for -c auth=iam) and read back (Retry-After on 503, Allow on 405).
ALLOW_HEADERS: Final = (
    "content-type",
    "authorization",
    "x-amz-date",
    "x-amz-security-token",
    "x-amz-content-sha256",
)
EXPOSE_HEADERS: Final = ("retry-after", "allow")
MAX_AGE_SECONDS: Final = 86_400  # browsers keep a preflight's answer this long (most cap it lower)


def allowed_origin(origins: Sequence[str], origin: str | None) -> str | None:
    """What ``Access-Control-Allow-Origin`` answers to ``origin``; None when it may not read the answer."""
    if "*" in origins:
        return "*"
    return origin if origin is not None and origin in origins else None


def preflight(origins: Sequence[str], headers: Mapping[str, str], methods: Sequence[str]) -> HttpResponse:
    """204 to a preflight for a path served with ``methods``: what the browser may send there, and from where."""
    answer = {
        "Access-Control-Allow-Methods": ", ".join([*methods, "OPTIONS"]),
        "Access-Control-Allow-Headers": ", ".join(ALLOW_HEADERS),
        "Access-Control-Expose-Headers": ", ".join(EXPOSE_HEADERS),
        "Access-Control-Max-Age": str(MAX_AGE_SECONDS),
        "Vary": "Origin",
    }
    origin = allowed_origin(origins, headers.get("origin"))
    if origin is not None:
        answer["Access-Control-Allow-Origin"] = origin
    return HttpResponse(204, "", answer, content_type=None)
