"""The bucket as enrichment jobs use it (``fencepost.enrichment.job_files.JobFiles``): listing a job's objects,
reading an input from an offset as long as it is the object that was planned (its ETag), writing a part as it is
made (a multipart upload of 8 MiB pieces), and joining parts into one object.

S3 takes a multipart upload's parts at 5 MiB or more, but for the last: a join copies each part of that size in S3
(``UploadPartCopy``, no byte through the function) and reads smaller ones into a piece of its own until the piece
is large enough; at most 10,000 pieces, which the job's ``ENRICH_MAX_PARTS`` keeps it under.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws.s3 import Bucket, BucketUnavailable, object_refs, unavailable
from fencepost.aws.whole_body import WholeBody
from fencepost.model import ObjectRef

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_s3.type_defs import CompletedPartTypeDef

MIN_PIECE: Final = 5 << 20  # S3's least part of a multipart upload (but the last)
PIECE: Final = 8 << 20
_CHANGED: Final = frozenset({"PreconditionFailed", "412", "NoSuchKey", "404", "InvalidRange", "416"})


class JobObjects:
    def __init__(self, client: S3Client, bucket: Bucket) -> None:
        self.client, self.bucket, self.name = client, bucket, bucket.name

    def refs(self, prefix: str) -> list[ObjectRef]:
        return list(object_refs(self.client, self.name, prefix))

    def get_json(self, key: str) -> Any:
        return self.bucket.get_json(key)

    def put_json(self, key: str, document: Any) -> None:
        self.bucket.put_json(key, document)

    def read_from(self, key: str, offset: int, etag: str) -> Callable[[int], bytes] | None:
        ranged = {"Range": f"bytes={offset}-"} if offset else {}
        with unavailable(key, "read", missing=_CHANGED) as changed:
            answer = self.client.get_object(Bucket=self.name, Key=key, IfMatch=f'"{etag}"', **ranged)  # type: ignore[arg-type]
        if changed[0]:
            return None
        body = WholeBody(answer["Body"])

        def read(size: int) -> bytes:
            with unavailable(key, "read to the end"):
                data: bytes = body.read(size)
            return data

        return read

    def upload(self, key: str, content_type: str) -> MultipartWriter:
        return MultipartWriter(self.client, self.name, key, content_type)

    def join(self, key: str, parts: Sequence[ObjectRef], content_type: str) -> None:
        writer = MultipartWriter(self.client, self.name, key, content_type)
        try:
            for part in parts:
                if part.size >= MIN_PIECE and not writer.pending:
                    writer.copy(part.key)
                    continue
                with unavailable(part.key, "read"):
                    writer.write(self.client.get_object(Bucket=self.name, Key=part.key)["Body"].read())
            writer.close()
        except BaseException:
            writer.abort()
            raise

    def delete(self, keys: Sequence[str]) -> None:
        for start in range(0, len(keys), 1000):
            batch = [{"Key": key} for key in keys[start : start + 1000]]
            with unavailable(keys[start], "deleted"):
                self.client.delete_objects(Bucket=self.name, Delete={"Objects": batch, "Quiet": True})  # type: ignore[typeddict-item]


class MultipartWriter:
    """One object written as it comes: pieces of ``PIECE`` bytes sent as they fill, or copied from other objects;
    one ``PutObject`` when it all fits in one piece."""

    def __init__(self, client: S3Client, bucket: str, key: str, content_type: str) -> None:
        self.client, self.bucket, self.key, self.content_type = client, bucket, key, content_type
        self.pending = bytearray()
        self.upload_id: str | None = None
        self.sent: list[CompletedPartTypeDef] = []

    def write(self, data: bytes) -> None:
        self.pending += data
        if len(self.pending) >= PIECE:
            self._send()

    def copy(self, source: str) -> None:
        """The whole object ``source`` as the next piece (nothing may be pending)."""
        assert not self.pending
        with unavailable(self.key, "written"):
            answer = self.client.upload_part_copy(
                Bucket=self.bucket,
                Key=self.key,
                UploadId=self._started(),
                PartNumber=len(self.sent) + 1,
                CopySource={"Bucket": self.bucket, "Key": source},
            )
        self.sent.append({"PartNumber": len(self.sent) + 1, "ETag": answer["CopyPartResult"]["ETag"]})

    def close(self) -> None:
        if self.upload_id is None:
            with unavailable(self.key, "written"):
                body = bytes(self.pending)
                self.client.put_object(Bucket=self.bucket, Key=self.key, Body=body, ContentType=self.content_type)
            return
        if self.pending:
            self._send()
        with unavailable(self.key, "written"):
            self.client.complete_multipart_upload(
                Bucket=self.bucket, Key=self.key, UploadId=self.upload_id, MultipartUpload={"Parts": self.sent}
            )

    def abort(self) -> None:
        if self.upload_id is not None:
            with contextlib.suppress(ClientError, BotoCoreError, BucketUnavailable):
                self.client.abort_multipart_upload(Bucket=self.bucket, Key=self.key, UploadId=self.upload_id)
            self.upload_id = None

    def _started(self) -> str:
        if self.upload_id is None:
            with unavailable(self.key, "written"):
                answer = self.client.create_multipart_upload(
                    Bucket=self.bucket, Key=self.key, ContentType=self.content_type
                )
            self.upload_id = answer["UploadId"]
        return self.upload_id

    def _send(self) -> None:
        number = len(self.sent) + 1
        with unavailable(self.key, "written"):
            answer = self.client.upload_part(
                Bucket=self.bucket, Key=self.key, UploadId=self._started(), PartNumber=number, Body=bytes(self.pending)
            )
        self.sent.append({"PartNumber": number, "ETag": answer["ETag"]})
        self.pending.clear()
