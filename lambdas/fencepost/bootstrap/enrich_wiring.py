"""Enrichment wired to the service (``python -m enrich`` against a stack): the lookup's own read path for live
pointers, histories and version headers (``TABLE_NAME``), and the bucket for each version's table file
(``BUCKET_NAME``)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

from fencepost.aws.dynamo import Tables, control_client
from fencepost.aws.job_objects import JobObjects
from fencepost.aws.s3 import Bucket, make_s3_client
from fencepost.core.folders.limits import Limits
from fencepost.enrichment.job_plans import JobPlanner
from fencepost.enrichment.job_steps import JobSteps
from fencepost.enrichment.sources import ServiceSource, TableCache
from fencepost.loading.dispatch import Step
from fencepost.loading.messages import Message
from fencepost.loading.ports import Outbox, Telemetry
from fencepost.reading.keyed_tables import KeyedTables
from fencepost.reading.lookup import Lookup
from fencepost.reading.past import History
from fencepost.settings import CacheLimits, LoaderSettings, LookupSettings


def service_source(env: Mapping[str, str] | None = None) -> ServiceSource:
    """The stack's datasets, read once for the job (its versions never change while it runs)."""
    settings = LookupSettings.from_env(os.environ if env is None else env)
    if settings.bucket is None:
        raise ValueError("BUCKET_NAME names the stack's bucket, where each version keeps its table file")
    tables = Tables.connect(control_client(), settings.table.table_name)
    return source_over(tables, Bucket(make_s3_client(), settings.bucket), settings.caches)


def source_over(
    tables: Tables,
    bucket: Bucket,
    caches: CacheLimits,
    kept: TableCache | None = None,
    keyed: KeyedTables | None = None,
) -> ServiceSource:
    """The datasets of ``tables``, their versions' table files read from ``bucket`` (and kept in ``kept``), the
    keyed versions they join read as lookups read them (within ``caches.keyed_bytes``; kept in ``keyed``)."""
    lookup = Lookup(tables, math.inf, limits=caches)
    limit = Limits().max_object_bytes
    keyed = keyed or KeyedTables(lambda: bucket, caches.keyed_bytes)
    return ServiceSource(History(tables, lookup, math.inf), lambda key: bucket.object_if_any(key, limit), kept, keyed)


def job_steps(
    tables: Tables, bucket: Bucket, *, s3: Any, outbox: Outbox, telemetry: Telemetry, settings: LoaderSettings
) -> Mapping[type[Message], Step]:
    """The loader's steps for enrichment jobs in the bucket (``enrichment.job_steps``); table files kept between
    invocations (a version's never changes), and the keyed tables their versions join."""
    kept, files = TableCache(), JobObjects(s3, bucket)
    caches = settings.caches  # KEYED_CACHE_BYTES as lookups have it: a table they join, and no larger one
    keyed = KeyedTables(lambda: bucket, caches.keyed_bytes)
    steps = JobSteps(
        files=files,
        sources=lambda: source_over(tables, bucket, caches, kept, keyed),
        outbox=outbox,
        telemetry=telemetry,
        planner=JobPlanner(files=files, part_bytes=settings.part_bytes, max_parts=settings.max_parts),
        in_flight=settings.parts_in_flight,
    )
    return steps.steps()
