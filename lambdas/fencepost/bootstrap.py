"""The one place the lookup function is wired: its settings, telemetry, the DynamoDB client and tables, the bucket
of the diffs (opened on the first request that needs it), the caches and the app. ``handlers.lookup`` calls it once
per cold start; tests call it with an environment of their own."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fencepost.aws.dynamo import Tables, make_client
from fencepost.http.app import HttpApi, create_app
from fencepost.observability import Observability
from fencepost.reading.lookup import Lookup
from fencepost.settings import LookupSettings

if TYPE_CHECKING:
    from fencepost.http.app import Files
    from fencepost.http.export_routes import ExportRequests


@dataclass(frozen=True, slots=True)
class LookupFunction:
    settings: LookupSettings
    obs: Observability
    tables: Tables
    api: HttpApi


def _bucket(name: str) -> Files:
    # An S3 client costs every cold start, and lookups never need it: only diffs, reverse lookups and exports do.
    from fencepost.aws.s3 import Bucket, make_s3_client

    return Bucket(make_s3_client(), name)


def _export_requests(url: str) -> ExportRequests:
    """Asks for exports on the loader's data queue; its SQS client made on the first request that asks."""
    from fencepost.aws.sqs import Queues, make_sqs_client
    from fencepost.loading.messages import Command, ExportVersion, dump

    queues = functools.cache(lambda: Queues[Command](make_sqs_client(), control_url=url, data_url=url, encode=dump))

    def request(dataset: str, version: int, form: str) -> None:
        queues().send(ExportVersion(dataset, version, form))

    return request


def lookup_function(env: Mapping[str, str] | None = None) -> LookupFunction:
    settings = LookupSettings.from_env(env)
    obs = Observability(
        service="fencepost-lookup", tracing=settings.tracing, metrics_interval=settings.metrics_interval
    )
    # Every request of the lookup function is built here from checked values, and DynamoDB validates each anyway:
    # botocore's own check of the parameters is skipped (about 35 us of each lookup's CPU, make bench section 2).
    client = make_client(pool=settings.batch_concurrency + 4, read_timeout=settings.read_timeout, validate=False)
    tables = Tables.connect(client, settings.table.table_name)
    bucket = settings.bucket
    files = None if bucket is None else functools.cache(functools.partial(_bucket, bucket))
    lookup = Lookup(tables, settings.cache_ttl, limits=settings.caches)
    exports = None if settings.export_queue is None else _export_requests(settings.export_queue)
    return LookupFunction(
        settings, obs, tables, create_app(settings, lookup, tables, obs, files=files, exports=exports)
    )
