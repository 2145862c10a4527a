"""The bucket as ``GET /enrich`` and ``GET /enrich/{job}`` read it (``fencepost.http.job_routes.JobBucket``): the
jobs' names, one level of a job's objects, its plan and summary, and its parts' keys. Reads only: no route starts or
changes a job."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws.s3 import Bucket, BucketUnavailable
from fencepost.core.storage.job_keys import JOBS_PREFIX, after_job, is_job_name

if TYPE_CHECKING:
    from mypy_boto3_s3.type_defs import ListObjectsV2RequestPaginateTypeDef

_PAGE = 1000  # S3's most keys a list answers


class JobReads:
    def __init__(self, bucket: Bucket) -> None:
        self.bucket, self.client, self.name = bucket, bucket.client, bucket.name

    def job_names(self, after: str | None, limit: int) -> tuple[list[str], bool]:
        """At most ``limit`` jobs, in the bucket's order, after ``after``; and whether more follow."""
        names: list[str] = []
        for page in self._pages(JOBS_PREFIX, after=None if after is None else after_job(after)):
            for entry in page.get("CommonPrefixes", []):
                name = entry["Prefix"][len(JOBS_PREFIX) : -1]
                if is_job_name(name):
                    if len(names) == limit:
                        return names, True
                    names.append(name)
        return names, False

    def listing(self, prefix: str) -> dict[str, float | None]:
        """What lies directly under ``prefix``: each object's key with when it was last written (epoch seconds),
        each folder's prefix (ending in ``/``) with None."""
        found: dict[str, float | None] = {}
        for page in self._pages(prefix):
            found.update((entry["Prefix"], None) for entry in page.get("CommonPrefixes", []))
            found.update((entry["Key"], entry["LastModified"].timestamp()) for entry in page.get("Contents", []))
        return found

    def keys(self, prefix: str) -> Iterator[str]:
        """Every key under ``prefix``."""
        for page in self._pages(prefix, delimiter=False):
            yield from (entry["Key"] for entry in page.get("Contents", []))

    def get_json(self, key: str) -> Any:
        """The JSON document ``key``; None when there is none."""
        return self.bucket.get_json(key)

    def _pages(self, prefix: str, *, delimiter: bool = True, after: str | None = None) -> Iterator[Any]:
        asked: ListObjectsV2RequestPaginateTypeDef = {"Bucket": self.name, "Prefix": prefix}
        asked["PaginationConfig"] = {"PageSize": _PAGE}
        if delimiter:
            asked["Delimiter"] = "/"
        if after is not None:
            asked["StartAfter"] = after
        try:
            yield from self.client.get_paginator("list_objects_v2").paginate(**asked)
        except (ClientError, BotoCoreError) as error:
            raise BucketUnavailable(f"{prefix} could not be listed: {error}") from error
