"""The bucket in memory, read as ``fencepost.aws.s3.Bucket`` reads S3: data objects listed by key, lines streamed
(gzip unpacked by its magic bytes), folder settings, and JSON documents (reports) written beside the data."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from urllib.parse import quote_plus

from fencepost.aws.s3 import BucketUnavailable
from fencepost.core.folders.settings_file import FolderSettings
from fencepost.core.formats.archives import unpacked
from fencepost.core.formats.base import FileError
from fencepost.core.storage.members import gzip_members
from fencepost.core.storage.objects import (
    FolderError,
    being_written,
    dated_of,
    is_data_key,
    prefixes_of,
    release_key,
    settings_keys,
)
from fencepost.core.versions.exports import Marker
from fencepost.model import ObjectRef
from tests.fakes.kernel import Faults, port


def notification(key: str, event: str = "ObjectCreated:Put") -> str:
    """The body S3 sends to the control queue for one object (keys URL-encoded, as S3 writes them)."""
    record = {
        "eventVersion": "2.1",
        "eventSource": "aws:s3",
        "awsRegion": "us-east-1",
        "eventName": event,
        "s3": {"bucket": {"name": "fake-bucket"}, "object": {"key": quote_plus(key)}},
    }
    return json.dumps({"Records": [record]})


class FakeBucket:
    def __init__(self, faults: Faults, clock: Callable[[], float] = time.time) -> None:
        self.faults = faults
        self.clock = clock
        self.objects: dict[str, bytes] = {}
        self.written: dict[str, float] = {}  # when ``put_bytes`` or ``put_parts`` wrote an object

    # -- what the test does to the bucket (not ports) ----------------------------------------------------------

    def put_object(self, key: str, body: bytes | str) -> None:
        self.objects[key] = body.encode() if isinstance(body, str) else body

    def delete_object(self, key: str) -> None:
        self.objects.pop(key, None)

    def ref(self, key: str) -> ObjectRef:
        body = self.objects[key]
        return ObjectRef(key, hashlib.md5(body).hexdigest(), len(body))  # S3's ETag of a single-part upload

    def data(self, dataset: str) -> list[ObjectRef]:
        """The dataset's data objects, sorted by key, as ``list_data`` lists them."""
        found = {
            key
            for prefix in prefixes_of(dataset)
            for key in self.objects
            if key.startswith(prefix) and is_data_key(key) and (prefix or "/" not in key)
        }
        return [self.ref(key) for key in sorted(found)]

    def document(self, key: str) -> Any:
        return json.loads(self.objects[key]) if key in self.objects else None

    # -- the loader's ports --------------------------------------------------------------------------------------

    @port
    def settings(self, dataset: str) -> FolderSettings:
        found = [(key, self.objects[key]) for key in settings_keys(dataset) if key in self.objects]
        if len(found) > 1:
            raise FileError(None, f"two settings objects apply to {dataset!r}: {found[0][0]} and {found[1][0]}")
        return FolderSettings.parse(found[0][1], found[0][0]) if found else FolderSettings()

    @port
    def list_data(self, dataset: str) -> list[ObjectRef]:
        return self.data(dataset)

    @port
    def release_unfinished(self, dataset: str) -> bool:
        return being_written(self.document(release_key(dataset)))

    @port
    def list_dated(self, dataset: str) -> dict[str, list[ObjectRef]]:
        found: dict[str, list[ObjectRef]] = {}
        for key in sorted(self.objects):
            try:
                owner = dated_of(key)
            except FolderError:
                continue
            if owner is not None and owner[0] == dataset:
                found.setdefault(owner[1], []).append(self.ref(key))
        return found

    @port
    def lines(self, key: str) -> Iterator[bytes]:
        if key not in self.objects:
            raise BucketUnavailable(f"{key} could not be read: NoSuchKey")
        body = self.objects[key]
        if body[:2] == b"\x1f\x8b":
            body = gzip.decompress(body)
        *lines, last = body.split(b"\n")  # lines with their endings, as the real bucket streams them
        return iter([line + b"\n" for line in lines] + ([last] if last else []))

    @port
    def lines_if_any(self, key: str) -> Iterator[bytes] | None:
        return self.lines(key) if key in self.objects else None

    @port
    def put_lines(self, key: str, lines: Iterable[str]) -> None:
        self.objects[key] = b"".join(gzip_members(lines))

    @port
    def put_bytes(self, key: str, body: bytes) -> None:
        self.objects[key] = body
        self.written[key] = self.clock()

    @port
    def put_parts(self, key: str, parts: Iterable[bytes], content_type: str) -> None:
        self.objects[key] = b"".join(parts)
        self.written[key] = self.clock()

    @port
    def modified(self, key: str) -> float | None:
        return self.written.get(key, 0.0) if key in self.objects else None

    @port
    def marker(self, key: str) -> Marker | None:
        if key not in self.objects:
            return None
        body = self.objects[key]
        return Marker(body.decode(), hashlib.md5(body).hexdigest(), self.written.get(key, 0.0))

    @port
    def claim(self, key: str, state: str, *, replacing: str | None) -> bool:
        """A conditional write, as S3 answers it: only if absent (``replacing`` None), or still that ETag."""
        current = self.marker(key)
        if (current is not None and replacing is None) or (replacing is not None and current is None):
            return False
        if current is not None and current.etag != replacing:
            return False
        self.put_bytes(key, state.encode())
        return True

    @port
    def delete_files(self, keys: list[str]) -> None:
        for key in keys:
            self.objects.pop(key, None)

    @port
    def read_from(self, key: str, offset: int) -> Callable[[int], bytes] | None:
        if key not in self.objects or offset > len(self.objects[key]):
            return None
        return io.BytesIO(self.objects[key][offset:]).read

    @port
    def object_if_any(self, key: str, limit: int) -> bytes | None:
        body = self.objects.get(key)
        if body is not None and len(body) > limit:
            raise FileError(None, f"{key} holds more than {limit:,} bytes")
        return body

    @port
    def read_bytes(self, key: str, limit: int) -> bytes:
        if key not in self.objects:
            raise BucketUnavailable(f"{key} could not be read: NoSuchKey")
        return unpacked(key, io.BytesIO(self.objects[key]), limit)

    @port
    def get_json(self, key: str) -> Any:
        return self.document(key)

    @port
    def put_json(self, key: str, document: Any) -> None:
        self.objects[key] = json.dumps(document, indent=1, ensure_ascii=False).encode()
