"""Entry point of the lookup function (API Gateway HTTP API, payload format 2.0); wired in ``fencepost.bootstrap``."""

from __future__ import annotations

from typing import Any

from fencepost.core.pauses import cold_start

with cold_start():
    from fencepost.bootstrap import lookup_function

    wired = lookup_function()
settings, obs, tables, api = wired.settings, wired.obs, wired.tables, wired.api


def _handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    # API Gateway's request id, read directly: a JMESPath correlation_id_path costs more on every call.
    obs.logger.set_correlation_id((event.get("requestContext") or {}).get("requestId"))
    return api.handle(event, context)


# Responses and errors name the looked-up address: with LOG_ADDRESSES=false, none of it reaches X-Ray either.
handler = obs.wrap(_handle, private=not settings.log_addresses)
