"""An S3 object's body read so that one cut short is never taken for the whole (``fencepost.aws.s3``)."""

from __future__ import annotations

from typing import Any


class WholeBody:
    """An object's body whose end is checked at every read that comes back short.

    botocore compares the bytes received with the ``Content-Length`` S3 sent only when a read finds the stream
    empty; a bounded ``read(n)`` of a body cut short (the connection closed early) returns what came, as if it
    were the end. A short read means the end: one more read makes botocore check, so a body cut short raises
    (``IncompleteReadError``, ``ResponseStreamingError``) instead of being read as whole.
    """

    def __init__(self, body: Any) -> None:
        self.body = body

    def read(self, size: int | None = None) -> bytes:
        if size is None or size < 0:
            whole: bytes = self.body.read()  # botocore checks the length of an unbounded read itself
            return whole
        data: bytes = self.body.read(size)
        if len(data) < size:
            data += self.body.read(size - len(data))  # empty at the end, after botocore's check
        return data

    def close(self) -> None:
        self.body.close()
