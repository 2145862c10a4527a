"""The lookup function wired: its settings, telemetry, the DynamoDB client and tables, the bucket of the diffs,
reverse lookups, exports and enrichment jobs (opened on the first request that needs it), the caches, the app and the
handler."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fencepost.aws.dynamo import Tables, make_client
from fencepost.observability import LOOKUP_SERVICE, Observability
from fencepost.settings import LookupSettings

if TYPE_CHECKING:
    from fencepost.aws.s3 import Bucket
    from fencepost.http.app import HttpApi
    from fencepost.http.export_routes import ExportRequests
    from fencepost.http.job_routes import JobBucket


@dataclass(frozen=True)
class LookupFunction:
    settings: LookupSettings
    obs: Observability
    tables: Tables
    api: HttpApi

    def handle(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        # API Gateway's request id, read directly: a JMESPath correlation_id_path costs more on every call.
        self.obs.logger.set_correlation_id((event.get("requestContext") or {}).get("requestId"))
        return self.api.handle(event, context)

    @functools.cached_property
    def handler(self) -> Any:
        """The Lambda handler. Responses and errors name the looked-up address: with ``LOG_ADDRESSES=false``, none
        of it reaches X-Ray either."""
        return self.obs.wrap(self.handle, private=not self.settings.log_addresses)


def _bucket(name: str) -> Bucket:
    # An S3 client costs every cold start, and lookups never need it: only diffs, reverse lookups, exports and
    # enrichment jobs do.
    from fencepost.aws.s3 import Bucket, make_s3_client

    return Bucket(make_s3_client(), name)


def _job_reads(bucket: Callable[[], Bucket]) -> JobBucket:
    """The enrichment jobs' objects, read with the bucket's client (``GET /enrich``)."""
    from fencepost.aws.job_reads import JobReads

    return JobReads(bucket())


def _export_requests(url: str, tables_url: str | None) -> ExportRequests:
    """Asks for exports on the loader's data queue, Parquet on the tables function's queue; the SQS client made on
    the first request that asks."""
    from fencepost.aws.sqs import Queues, TableRequests, make_sqs_client
    from fencepost.loading.messages import Command, ExportVersion, dump

    client = functools.cache(make_sqs_client)
    queues = functools.cache(lambda: Queues[Command](client(), control_url=url, data_url=url, encode=dump))
    tables = None if tables_url is None else TableRequests(client, tables_url)

    def request(dataset: str, version: int, form: str) -> None:
        if form == "parquet" and tables is not None:
            tables(dataset, version)
        else:
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
    jobs = None if files is None else functools.cache(functools.partial(_job_reads, files))
    lookup = Lookup(tables, settings.cache_ttl, limits=settings.caches)
    exports = None if settings.export_queue is None else _export_requests(settings.export_queue, settings.tables_queue)
    return LookupFunction(
        settings, obs, tables, create_app(settings, lookup, tables, obs, files=files, exports=exports, jobs=jobs)
    )
