"""The bucket as the tables function uses it: a version's table file read, its Parquet file uploaded from local disk
(multipart, a part at a time: boto3's managed transfer), small objects and the export's marker (``aws.s3.Bucket``)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from boto3.s3.transfer import TransferConfig
from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws.s3 import Bucket, BucketUnavailable
from fencepost.core.versions.exports import Marker

PART_BYTES: Final = 16 << 20
_MISSING: Final = frozenset({"NoSuchKey", "404", "NotFound"})


class TableObjects:
    def __init__(self, bucket: Bucket) -> None:
        self.bucket = bucket
        self.transfer = TransferConfig(
            multipart_threshold=PART_BYTES, multipart_chunksize=PART_BYTES, max_concurrency=4
        )

    def read(self, key: str) -> bytes | None:
        try:
            body = self.bucket.client.get_object(Bucket=self.bucket.name, Key=key)["Body"]
            with body:
                return body.read()
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in _MISSING:
                return None
            raise BucketUnavailable(f"could not read {key}: {error}") from error
        except BotoCoreError as error:
            raise BucketUnavailable(f"could not read {key}: {error}") from error

    def exists(self, key: str) -> bool:
        return self.bucket.modified(key) is not None

    def upload(self, key: str, path: Path, content_type: str) -> None:
        try:
            self.bucket.client.upload_file(
                str(path), self.bucket.name, key, ExtraArgs={"ContentType": content_type}, Config=self.transfer
            )
        except (ClientError, BotoCoreError) as error:
            raise BucketUnavailable(f"could not upload {key}: {error}") from error

    def put_bytes(self, key: str, body: bytes) -> None:
        self.bucket.put_bytes(key, body)

    def marker(self, key: str) -> Marker | None:
        return self.bucket.marker(key)

    def claim(self, key: str, state: str, *, replacing: str | None) -> bool:
        return self.bucket.claim(key, state, replacing=replacing)

    def delete_files(self, keys: list[str]) -> None:
        self.bucket.delete_files(keys)
