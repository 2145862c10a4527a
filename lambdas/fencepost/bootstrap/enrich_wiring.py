"""Enrichment wired to the service (``python -m enrich`` against a stack): the lookup's own read path for live
pointers, histories and version headers (``TABLE_NAME``), and the bucket for each version's table file
(``BUCKET_NAME``)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

from fencepost.aws.dynamo import Tables, make_client
from fencepost.aws.s3 import Bucket, make_s3_client
from fencepost.core.folders.limits import Limits
from fencepost.enrichment.sources import ServiceSource
from fencepost.reading.lookup import Lookup
from fencepost.reading.past import History
from fencepost.settings import LookupSettings


def service_source(env: Mapping[str, str] | None = None) -> ServiceSource:
    """The stack's datasets, read once for the job (its versions never change while it runs)."""
    settings = LookupSettings.from_env(os.environ if env is None else env)
    if settings.bucket is None:
        raise ValueError("BUCKET_NAME names the stack's bucket, where each version keeps its table file")
    tables = Tables.connect(make_client(retries=3, read_timeout=10), settings.table.table_name)
    lookup = Lookup(tables, math.inf, limits=settings.caches)
    bucket = Bucket(make_s3_client(), settings.bucket)
    limit = Limits().max_object_bytes
    return ServiceSource(History(tables, lookup, math.inf), lambda key: bucket.object_if_any(key, limit))
