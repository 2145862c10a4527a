"""The one module that talks to S3: listing a dataset's objects, streaming their lines, settings and reports.

Every object is read within the loader's limits (``fencepost.core.folders.limits``): a line file line by line, never
more than ``max_object_bytes`` of it once decompressed; a JSON document (settings, a report) whole, never more than
``max_object_bytes``, and a folder's settings never more than ``max_line_bytes`` (they are parsed whole); a MaxMind
DB file whole, never more than ``max_object_bytes`` of it once decompressed (``read_bytes``).
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws import USER_AGENT
from fencepost.aws.whole_body import WholeBody
from fencepost.core.folders.limits import Limits
from fencepost.core.folders.settings_file import FolderSettings
from fencepost.core.formats.archives import unpacked
from fencepost.core.formats.base import FileError
from fencepost.core.formats.lines import object_lines
from fencepost.core.storage.members import gzip_members
from fencepost.core.storage.objects import (
    FolderError,
    being_written,
    dated_of,
    dated_prefixes,
    is_data_key,
    legacy_key,
    prefixes_of,
    release_key,
    settings_keys,
)
from fencepost.core.versions.exports import Marker
from fencepost.errors import DependencyUnavailable
from fencepost.model import ObjectRef

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_s3.type_defs import CompletedPartTypeDef


def make_s3_client() -> S3Client:
    config = Config(
        connect_timeout=2, read_timeout=30, retries={"max_attempts": 5, "mode": "standard"}, user_agent=USER_AGENT
    )
    return boto3.client("s3", config=config)


# A conditional write that lost: the object exists (If-None-Match), it changed or is gone (If-Match), or another
# conditional write to it was in progress (409).
_LOST_RACE = frozenset({"PreconditionFailed", "412", "ConditionalRequestConflict", "409", "NoSuchKey", "404"})


_MISSING = frozenset({"NoSuchKey", "404", "NotFound"})


class BucketUnavailable(DependencyUnavailable):
    """S3 refused or did not answer."""


@contextlib.contextmanager
def unavailable(key: str, what: str, *, missing: frozenset[str] = frozenset()) -> Iterator[list[bool]]:
    """S3's errors as ``BucketUnavailable`` naming ``key`` and what could not be done to it; an error whose code is
    in ``missing`` is no error: the yielded flag is then set (``[True]``)."""
    flag = [False]
    try:
        yield flag
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in missing:
            flag[0] = True
            return
        raise BucketUnavailable(f"{key} could not be {what}: {error}") from error
    except BotoCoreError as error:
        raise BucketUnavailable(f"{key} could not be {what}: {error}") from error


def object_refs(client: S3Client, bucket: str, prefix: str) -> Iterator[ObjectRef]:
    """The objects under ``prefix`` (recursively), or at the bucket's top level for an empty prefix."""
    paginator = client.get_paginator("list_objects_v2")
    try:
        if prefix:
            pages = paginator.paginate(Bucket=bucket, Prefix=prefix)
        else:
            pages = paginator.paginate(Bucket=bucket, Delimiter="/")
        for page in pages:
            for entry in page.get("Contents", []):
                yield ObjectRef(entry["Key"], entry["ETag"].strip('"'), entry["Size"])
    except (ClientError, BotoCoreError) as error:
        raise BucketUnavailable(f"the bucket could not be listed: {error}") from error


class Bucket:
    def __init__(self, client: S3Client, name: str, limits: Limits | None = None) -> None:
        self.client = client
        self.name = name
        self.limits = limits or Limits()

    def list_data(self, dataset: str) -> list[ObjectRef]:
        """The dataset's data objects, sorted by key (the row order of the dataset follows it)."""
        found: dict[str, ObjectRef] = {}
        for prefix in prefixes_of(dataset):
            # At the root only the top level belongs to the default dataset; folders are listed recursively.
            found.update(
                (r.key, r)
                for r in object_refs(self.client, self.name, prefix)
                if is_data_key(r.key) and (prefix or "/" not in r.key)
            )
        return [found[key] for key in sorted(found)]

    def list_dated(self, dataset: str) -> dict[str, list[ObjectRef]]:
        """The dataset's dated folders (``core.folders.backfill``): each date's data objects, sorted by key (objects in
        no dated folder are left out: the loader rejected them when they arrived)."""
        found: dict[str, list[ObjectRef]] = {}
        for ref in sorted(
            (r for prefix in dated_prefixes(dataset) for r in object_refs(self.client, self.name, prefix)),
            key=lambda r: r.key,
        ):
            try:
                owner = dated_of(ref.key)
            except FolderError:
                continue
            if owner is not None and owner[0] == dataset:
                found.setdefault(owner[1], []).append(ref)
        return found

    def lines(self, key: str) -> Iterator[bytes]:
        """The object's lines, streamed; gzip (by its magic bytes, whatever the name) is unpacked on the way."""
        with unavailable(key, "read"):
            body = WholeBody(self.client.get_object(Bucket=self.name, Key=key)["Body"])
        yield from self._lines(key, body)

    def lines_if_any(self, key: str) -> Iterator[bytes] | None:
        """The object's lines, as ``lines`` streams them; None when there is no such object."""
        body = self._body_if_any(key)
        return None if body is None else self._lines(key, body)

    def _body_if_any(self, key: str, offset: int = 0) -> Any:
        """The object's body stream from byte ``offset`` on (a ranged GET); None when there is no such object, or
        it is shorter than ``offset``. A version's kept file is read where versions built before ``_kept/`` existed
        kept it when ``_kept/`` has none (``legacy_key``)."""
        body = self._ranged_body(key, offset)
        legacy = legacy_key(key)
        return self._ranged_body(legacy, offset) if body is None and legacy is not None else body

    def _ranged_body(self, key: str, offset: int) -> Any:
        ranged = {"Range": f"bytes={offset}-"} if offset else {}
        with unavailable(key, "read", missing=_MISSING | {"InvalidRange", "416"}) as gone:
            return WholeBody(self.client.get_object(Bucket=self.name, Key=key, **ranged)["Body"])  # type: ignore[arg-type]
        assert gone[0]
        return None

    def put_lines(self, key: str, lines: Iterable[str]) -> None:
        """Text lines as one gzip object of members (``core.storage.members``: it can be read from any member on),
        compressed as they come; the compressed bytes are held until sent."""
        self._put(key, b"".join(gzip_members(lines)), "application/gzip")

    def put_bytes(self, key: str, body: bytes) -> None:
        self._put(key, body, "application/octet-stream")

    def _put(self, key: str, body: bytes, content_type: str) -> None:
        with unavailable(key, "written"):
            self.client.put_object(Bucket=self.name, Key=key, Body=body, ContentType=content_type)

    def put_parts(self, key: str, parts: Iterable[bytes], content_type: str) -> None:
        """One object of ``parts`` (each but the last at least 5 MiB), sent as they come: a multipart upload for
        more than one part, aborted if any part fails."""
        parts = iter(parts)
        first = next(parts, b"")
        second = next(parts, None)
        if second is None:
            self._put(key, first, content_type)
            return
        with unavailable(key, "written"):
            upload = self.client.create_multipart_upload(Bucket=self.name, Key=key, ContentType=content_type)
        sent: list[CompletedPartTypeDef] = []
        try:
            with unavailable(key, "written"):
                for number, part in enumerate(itertools.chain([first, second], parts), 1):
                    answer = self.client.upload_part(
                        Bucket=self.name, Key=key, UploadId=upload["UploadId"], PartNumber=number, Body=part
                    )
                    sent.append({"PartNumber": number, "ETag": answer["ETag"]})
                self.client.complete_multipart_upload(
                    Bucket=self.name, Key=key, UploadId=upload["UploadId"], MultipartUpload={"Parts": sent}
                )
        except BucketUnavailable:
            with contextlib.suppress(ClientError, BotoCoreError):
                self.client.abort_multipart_upload(Bucket=self.name, Key=key, UploadId=upload["UploadId"])
            raise

    def modified(self, key: str) -> float | None:
        """When the object was last written (epoch seconds); None when there is none."""
        with unavailable(key, "read", missing=_MISSING) as gone:
            answer = self.client.head_object(Bucket=self.name, Key=key)
        return None if gone[0] else answer["LastModified"].timestamp()

    def marker(self, key: str) -> Marker | None:
        """An export's marker (``core.versions.exports.Marker``); None when there is none."""
        with unavailable(key, "read", missing=_MISSING) as gone:
            answer = self.client.get_object(Bucket=self.name, Key=key)
            state = answer["Body"].read(64).decode("utf-8", "replace")
        return None if gone[0] else Marker(state, answer["ETag"], answer["LastModified"].timestamp())

    def claim(self, key: str, state: str, *, replacing: str | None) -> bool:
        """Write the marker ``key`` only if there is none (``replacing`` None) or it still has the ETag ``replacing``
        (S3's conditional writes): False when someone else wrote it first."""
        condition = {"IfNoneMatch": "*"} if replacing is None else {"IfMatch": replacing}
        with unavailable(key, "written", missing=_LOST_RACE) as lost:
            self.client.put_object(Bucket=self.name, Key=key, Body=state.encode(), **condition)  # type: ignore[arg-type]
        return not lost[0]

    def presigned(self, key: str, seconds: int) -> str:
        """A URL that GETs the object for ``seconds`` (signed here, without a call)."""
        url: str = self.client.generate_presigned_url(
            "get_object", Params={"Bucket": self.name, "Key": key}, ExpiresIn=seconds
        )
        return url

    def delete_files(self, keys: list[str]) -> None:
        """Delete the objects (one that is not there is no error), a version's kept files wherever they are kept."""
        for key in [*keys, *filter(None, map(legacy_key, keys))]:
            with unavailable(key, "deleted"):
                self.client.delete_object(Bucket=self.name, Key=key)

    def read_from(self, key: str, offset: int) -> Callable[[int], bytes] | None:
        """The object's bytes from ``offset`` on (one ranged GET), a read at a time; None when there is no such
        object or it is shorter than ``offset``."""
        body = self._body_if_any(key, offset)
        if body is None:
            return None

        def read(size: int) -> bytes:
            with unavailable(key, "read to the end"):
                data: bytes = body.read(size)
            return data

        return read

    def _lines(self, key: str, body: Any) -> Iterator[bytes]:
        with unavailable(key, "read to the end"):
            yield from object_lines(body, self.limits)

    def read_bytes(self, key: str, limit: int) -> bytes:
        """The object whole, decompressed (a tar archive's ``.mmdb`` member), at most ``limit + 1`` bytes of it:
        more than ``limit`` means it holds more (``fencepost.core.formats.archives``)."""
        with unavailable(key, "read"):
            body = WholeBody(self.client.get_object(Bucket=self.name, Key=key)["Body"])
            return unpacked(key, body, limit)

    def settings(self, dataset: str) -> FolderSettings:
        cap, why = min(self.limits.max_line_bytes, self.limits.max_object_bytes), "MAX_LINE_BYTES: it is read whole"
        found = [(key, raw) for key in settings_keys(dataset) if (raw := self._get(key, cap, why)) is not None]
        if len(found) > 1:
            raise FileError(None, f"two settings objects apply to {dataset!r}: {found[0][0]} and {found[1][0]}")
        return FolderSettings.parse(found[0][1], found[0][0]) if found else FolderSettings()

    def _get(self, key: str, limit: int | None = None, setting: str = "MAX_OBJECT_BYTES") -> bytes | None:
        """The whole object (None when there is none); raises ``FileError`` when it holds more than ``limit``."""
        limit = self.limits.max_object_bytes if limit is None else limit
        body = self._body_if_any(key)
        if body is None:
            return None
        with unavailable(key, "read"):
            data: bytes = body.read(limit + 1)
        if len(data) > limit:
            raise FileError(None, f"{key} holds more than {limit:,} bytes ({setting})")
        return data

    def object_if_any(self, key: str, limit: int) -> bytes | None:
        """The object's bytes as stored (None when there is none); ``FileError`` when it holds more than ``limit``."""
        return self._get(key, limit)

    def release_unfinished(self, dataset: str) -> bool:
        return being_written(self.get_json(release_key(dataset)))

    def get_json(self, key: str) -> Any:
        raw = self._get(key)
        return None if raw is None else json.loads(raw)

    def put_json(self, key: str, document: Any) -> None:
        self._put(key, json.dumps(document, indent=1, ensure_ascii=False).encode(), "application/json")
