"""The lookup function's access line: one ``access`` line at INFO a request, whatever its route and answer.

It is written when the function logs at INFO (``-c logLevel=info``, ``POWERTOOLS_LOG_LEVEL``); at the function's
default WARNING it is not, and nothing of it is computed. It names the request (``method``, ``path``, ``status``;
the line's correlation id is the front's request id) and, only with ``LOG_ADDRESSES=true`` (addresses are personal
data), who sent it:

- ``client``: the address ``ip=me`` answers for the request, as ``TRUSTED_PROXIES`` reads the proxies' headers
  (``fencepost.core.space.forwarded``): an ``X-Forwarded-For`` entry or a ``CloudFront-Viewer-Address`` that no
  trusted hop wrote is never named;
- ``peer``: the connection's address, as the front saw it (``sourceIp``: a proxy's, when there is one in front).

With ``LOG_ADDRESSES=false`` the line has neither field, nor any other address. API Gateway's own access log (the
HTTP API front) sees the connection alone: it records the peer (``sourceIp``), never the client behind a proxy.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fencepost.core.space.forwarded import Trust
from fencepost.http.lookup_request import caller_ip, source_ip

ACCESS = "access"  # the line's message


@dataclass(frozen=True, slots=True)
class AccessLog:
    logger: Any  # the function's Powertools logger
    trust: Trust  # the proxies ``ip=me`` looks through (TRUSTED_PROXIES)
    log_addresses: bool  # LOG_ADDRESSES: the line names the client and the peer

    def record(self, event: Mapping[str, Any], response: Mapping[str, Any]) -> None:
        """The line of one request and the answer it got, when the logger writes INFO lines."""
        if self.logger.log_level > logging.INFO:
            return
        http = (event.get("requestContext") or {}).get("http") or {}
        fields: dict[str, Any] = {
            "method": http.get("method"),
            "path": event.get("rawPath"),
            "status": response.get("statusCode"),
        }
        if self.log_addresses:
            fields["client"] = caller_ip(event, self.trust)
            fields["peer"] = source_ip(event)
        self.logger.info(ACCESS, extra=fields)
