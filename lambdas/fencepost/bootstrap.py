"""The one place the lookup function is wired: its settings, telemetry, the DynamoDB client and tables, the bucket
of the diffs (opened on the first request that needs it), the caches and the app. ``handlers.lookup`` calls it once
per cold start; tests call it with an environment of their own."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from fencepost.aws.dynamo import Tables, make_client
from fencepost.http.app import Files, HttpApi, create_app
from fencepost.observability import Observability
from fencepost.reading.lookup import Lookup
from fencepost.settings import LookupSettings


@dataclass(frozen=True, slots=True)
class LookupFunction:
    settings: LookupSettings
    obs: Observability
    tables: Tables
    api: HttpApi


def _bucket(name: str) -> Files:
    # An S3 client costs every cold start, and lookups never need it: only diffs and reverse lookups do.
    from fencepost.aws.s3 import Bucket, make_s3_client

    return Bucket(make_s3_client(), name)


def lookup_function(env: Mapping[str, str] | None = None) -> LookupFunction:
    settings = LookupSettings.from_env(env)
    obs = Observability(
        service="fencepost-lookup", tracing=settings.tracing, metrics_interval=settings.metrics_interval
    )
    client = make_client(pool=settings.batch_concurrency + 4, read_timeout=settings.read_timeout)
    tables = Tables.connect(client, settings.table.table_name)
    bucket = settings.bucket
    files = None if bucket is None else functools.cache(functools.partial(_bucket, bucket))
    lookup = Lookup(tables, settings.cache_ttl, limits=settings.caches)
    return LookupFunction(settings, obs, tables, create_app(settings, lookup, tables, obs, files))
