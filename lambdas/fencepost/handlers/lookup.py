"""Entry point of the lookup function (API Gateway HTTP API, payload format 2.0)."""

from __future__ import annotations

import functools
from typing import Any

from fencepost.aws.dynamo import Tables, make_client
from fencepost.http.app import create_app
from fencepost.http.diff_routes import ChangeFiles
from fencepost.observability import Observability
from fencepost.reading.lookup import Lookup
from fencepost.settings import LookupSettings

settings = LookupSettings.from_env()
obs = Observability(service="fencepost-lookup", tracing=settings.tracing, metrics_interval=settings.metrics_interval)
client = make_client(pool=settings.batch_concurrency + 4, read_timeout=settings.read_timeout)
tables = Tables.connect(client, settings.table.table_name)


def _bucket() -> ChangeFiles:
    # Opened on the first diff request: an S3 client costs every cold start otherwise, and lookups never need it.
    from fencepost.aws.s3 import Bucket, make_s3_client

    assert settings.bucket is not None
    return Bucket(make_s3_client(), settings.bucket)


files = None if settings.bucket is None else functools.cache(_bucket)
api = create_app(settings, Lookup(tables, settings.cache_ttl, limits=settings.caches), tables, obs, files)


def _handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    # API Gateway's request id, read directly: a JMESPath correlation_id_path costs more on every call.
    obs.logger.set_correlation_id((event.get("requestContext") or {}).get("requestId"))
    return api.handle(event, context)


# Responses and errors name the looked-up address: with LOG_ADDRESSES=false, none of it reaches X-Ray either.
handler = obs.wrap(_handle, private=not settings.log_addresses)
