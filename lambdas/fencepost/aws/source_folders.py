"""The bucket as a source check sees it (``fencepost.sources.needs.SourceFolders``): which folders have a
``_source.json``, what their ``_fetched/`` folder holds, and writing a release into it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws.s3 import BucketUnavailable, object_refs
from fencepost.aws.whole_body import WholeBody
from fencepost.core.storage.keys import is_dataset_name
from fencepost.core.storage.objects import (
    DEFAULT_DATASET,
    fetched_prefix,
    is_fetched,
    release_document,
    release_key,
    source_keys,
)

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_s3.type_defs import ObjectIdentifierTypeDef

_MISSING = ("NoSuchKey", "404")


class SourceBucket:
    def __init__(self, client: S3Client, name: str) -> None:
        self.client, self.name = client, name

    def source_datasets(self) -> list[str]:
        """The datasets whose folder may hold a ``_source.json``: every folder at the top level, and the default
        dataset (its source may sit at the root). ``read_source`` tells which do."""
        try:
            pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.name, Delimiter="/")
            folders = [entry["Prefix"][:-1] for page in pages for entry in page.get("CommonPrefixes", [])]
        except (ClientError, BotoCoreError) as error:
            raise BucketUnavailable(f"the bucket could not be listed: {error}") from error
        return sorted({DEFAULT_DATASET, *(name for name in folders if is_dataset_name(name))})

    def read_source(self, dataset: str) -> tuple[str, bytes] | None:
        for key in source_keys(dataset):
            try:
                return key, WholeBody(self.client.get_object(Bucket=self.name, Key=key)["Body"]).read(1 << 20)
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") not in _MISSING:
                    raise BucketUnavailable(f"{key} could not be read: {error}") from error
            except BotoCoreError as error:
                raise BucketUnavailable(f"{key} could not be read: {error}") from error
        return None

    def fetched_objects(self, dataset: str) -> dict[str, str]:
        found = object_refs(self.client, self.name, fetched_prefix(dataset))
        return {ref.key: ref.etag for ref in found if is_fetched(ref.key)}

    def put_fetched(self, key: str, path: Path) -> str:
        """Upload the file (in parts when large) and return its ETag as a listing shows it."""
        try:
            self.client.upload_file(str(path), self.name, key)
            return self.client.head_object(Bucket=self.name, Key=key)["ETag"].strip('"')
        except (ClientError, BotoCoreError) as error:
            raise BucketUnavailable(f"{key} could not be written: {error}") from error

    def put_release(
        self, dataset: str, objects: dict[str, str] | None, last_modified: dict[str, str] | None = None
    ) -> None:
        key = release_key(dataset)
        body = json.dumps(release_document(objects, last_modified), sort_keys=True).encode()
        try:
            self.client.put_object(Bucket=self.name, Key=key, Body=body, ContentType="application/json")
        except (ClientError, BotoCoreError) as error:
            raise BucketUnavailable(f"{key} could not be written: {error}") from error

    def delete_fetched(self, keys: list[str]) -> None:
        try:
            for start in range(0, len(keys), 1000):
                batch: list[ObjectIdentifierTypeDef] = [{"Key": key} for key in keys[start : start + 1000]]
                self.client.delete_objects(Bucket=self.name, Delete={"Objects": batch, "Quiet": True})
        except (ClientError, BotoCoreError) as error:
            raise BucketUnavailable(f"fetched objects could not be deleted: {error}") from error
