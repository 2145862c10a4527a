"""What a job in the bucket needs of it (``JobFiles``, implemented by ``fencepost.aws.job_objects``), its plan, and
the summaries of its parts added up into the job's.

A part counts its own lines (its file's head not among them) and numbers its bad rows from its first line; the job's
summary numbers them in their file, adding the lines of the parts before.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from fencepost.enrichment.job import SHOWN_BAD, Summary
from fencepost.model import ObjectRef

Read = Callable[[int], bytes]
CONTENT_TYPES: Final = {"csv": "text/csv", "tsv": "text/tab-separated-values", "jsonl": "application/x-ndjson"}
GZIP_TYPE: Final = "application/gzip"


def content_type(form: str, gzip: bool) -> str:
    """What an output (and each of its parts) is served as: a log written in its own syntax is plain text."""
    return GZIP_TYPE if gzip else CONTENT_TYPES.get(form, "text/plain")


class Upload(Protocol):
    """An object written a piece at a time (a multipart upload), complete once closed."""

    def write(self, data: bytes) -> None: ...
    def close(self) -> None: ...
    def abort(self) -> None: ...


class JobFiles(Protocol):
    def refs(self, prefix: str) -> list[ObjectRef]: ...
    def get_json(self, key: str) -> Any: ...
    def put_json(self, key: str, document: Any) -> None: ...
    def read_from(self, key: str, offset: int, etag: str) -> Read | None:
        """The object's bytes from ``offset`` on; None when it is gone or no longer has ETag ``etag``."""
        ...

    def upload(self, key: str, content_type: str) -> Upload: ...
    def join(self, key: str, parts: Sequence[ObjectRef], content_type: str) -> None:
        """One object of ``parts``' bytes, in order."""
        ...

    def delete(self, keys: Sequence[str]) -> None: ...


@dataclass(frozen=True, slots=True)
class PlannedInput:
    key: str
    etag: str
    size: int
    gzip: bool
    parts: tuple[tuple[int, int], ...]
    head: bytes = b""  # the lines before the first row, read before each part after the first
    output: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "etag": self.etag,
            "size": self.size,
            "gzip": self.gzip,
            "parts": [list(part) for part in self.parts],
            "head": base64.b64encode(self.head).decode(),
            "output": self.output,
        }

    @classmethod
    def of(cls, document: dict[str, Any]) -> PlannedInput:
        return cls(
            document["key"],
            document["etag"],
            int(document["size"]),
            bool(document["gzip"]),
            tuple((int(start), int(end)) for start, end in document["parts"]),
            base64.b64decode(document["head"]),
            document["output"],
        )

    @property
    def head_lines(self) -> int:
        return self.head.count(b"\n")


def part_document(summary: Summary, head_lines: int) -> dict[str, Any]:
    """What a part counted, its line numbers from its own first line."""
    document = summary.as_dict()
    document["lines"] = summary.lines - head_lines
    document["first_bad_rows"] = [{**bad, "line": bad["line"] - head_lines} for bad in summary.first_bad]
    return document


def job_summary(inputs: Sequence[PlannedInput], parts: Sequence[Sequence[dict[str, Any]]]) -> dict[str, Any]:
    """The job's counts from its parts' (``parts[i]``: input i's, in order)."""
    total: dict[str, Any] = {"rows": 0, "bad_rows": 0, "first_bad_rows": [], "versions": {}, "no_version_at": {}}
    total |= {"bytes_in": 0, "bytes_out": 0, "worker_seconds": 0.0}
    outputs = []
    for planned, documents in zip(inputs, parts, strict=True):
        lines = rows = 0
        for document in documents:
            for bad in document["first_bad_rows"]:
                if len(total["first_bad_rows"]) < SHOWN_BAD:
                    total["first_bad_rows"].append({"input": planned.key, **bad, "line": bad["line"] + lines})
            lines += document["lines"]
            rows += document["rows"]
            total["bad_rows"] += document["bad_rows"]
            total["bytes_in"] += document["bytes_in"]
            total["bytes_out"] += document["bytes_out"]
            total["worker_seconds"] += document["seconds"]
            _add(total["no_version_at"], document["no_version_at"])
            for dataset, found in document["versions"].items():
                _add(total["versions"].setdefault(dataset, {}), found)
        total["rows"] += rows
        outputs.append({"input": planned.key, "output": planned.output, "rows": rows, "parts": len(documents)})
    total["worker_seconds"] = round(total["worker_seconds"], 3)
    total["outputs"] = outputs
    return total


def _add(into: dict[str, int], counts: dict[str, int]) -> None:
    for name, count in counts.items():
        into[name] = into.get(name, 0) + count
