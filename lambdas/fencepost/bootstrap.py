"""The one place the functions' parts are wired. The lookup function: its settings, telemetry, the DynamoDB client
and tables, the bucket of the diffs (opened on the first request that needs it), the caches and the app
(``handlers.lookup`` calls it once per cold start; tests call it with an environment of their own). The check of the
folders' sources: the bucket, the table, the secret store and the downloads (``handlers.fetch``, and the admin
module's ``fetch``)."""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fencepost.aws.dynamo import Tables, make_client
from fencepost.observability import LOOKUP_SERVICE, Observability
from fencepost.settings import FetchSettings, LookupSettings

if TYPE_CHECKING:
    from fencepost.http.app import Files, HttpApi
    from fencepost.http.export_routes import ExportRequests
    from fencepost.sources.check import Checker


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
    from fencepost.http.app import create_app
    from fencepost.reading.lookup import Lookup

    settings = LookupSettings.from_env(env)
    obs = Observability(service=LOOKUP_SERVICE, tracing=settings.tracing, metrics_interval=settings.metrics_interval)
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


def source_checker(settings: FetchSettings) -> Checker:
    """What checks the folders' sources: the bucket, the table's source states, Secrets Manager (each secret read
    once per ``Checker.secrets``, which a caller may replace) and the downloads, bounded by the loader's limits."""
    from fencepost.aws.s3 import make_s3_client
    from fencepost.aws.secrets import SecretStore
    from fencepost.aws.source_folders import SourceBucket
    from fencepost.downloads import Fetcher, FetchPolicy
    from fencepost.sources.check import Checker
    from fencepost.sources.outcomes import CheckRules

    policy = FetchPolicy(
        timeout=settings.timeout,
        attempts=settings.attempts,
        max_wait=settings.max_wait,
        https_only=settings.https_only,
        allow_loopback=settings.allow_loopback,
    )
    return Checker(
        folders=SourceBucket(make_s3_client(), settings.bucket),
        states=Tables.connect(make_client(retries=3, read_timeout=10), settings.table.table_name).sources,
        secrets=SecretStore(),
        downloads=Fetcher(policy),
        rules=CheckRules(
            settings.least_every, settings.https_only, settings.limits.max_object_bytes, settings.check_seconds
        ),
        clock=lambda: int(time.time() * 1000),
    )
