"""The loader's messages: one frozen dataclass per kind, each with the queue (lane) it travels on.

S3's notifications arrive on the control queue as S3 writes them; the loader's own messages are JSON objects
with a ``kind``. ``parse`` turns a body into a message or raises ``Unparsable`` (the dispatcher logs and drops
those: a message that cannot be read never will be, and must not be retried forever).
"""

from __future__ import annotations

import json
from dataclasses import MISSING, asdict, dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar
from urllib.parse import unquote_plus

from fencepost.core.storage.job_keys import is_job_name
from fencepost.core.storage.keys import is_dataset_name


class Lane(StrEnum):
    """Control messages (changes, builds) never wait behind data messages (chunk writes, deletions)."""

    CONTROL = "control"
    DATA = "data"


class Unparsable(ValueError):
    """A body that is no message of the loader's."""


@dataclass(frozen=True, slots=True)
class QueueWired:
    """The test notification S3 sends when a bucket's notifications are configured."""


@dataclass(frozen=True, slots=True)
class ObjectsChanged:
    """Objects were created or removed in the bucket (S3's own notification)."""

    keys: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BuildRequested:
    """Build ``dataset`` for change number ``request`` (only the latest request builds)."""

    kind: ClassVar[str] = "build"
    lane: ClassVar[Lane] = Lane.CONTROL
    dataset: str
    request: int


@dataclass(frozen=True, slots=True)
class WriteChunk:
    """Write chunk ``chunk`` of build ``build``: its pieces, compressed (``fencepost.core.storage.chunks``)."""

    kind: ClassVar[str] = "chunk"
    lane: ClassVar[Lane] = Lane.DATA
    dataset: str
    build: int
    chunk: int
    payload: str


@dataclass(frozen=True, slots=True)
class DeleteVersion:
    """Delete version ``version`` once ``not_before`` (epoch seconds) has passed, from partition ``cursor`` on."""

    kind: ClassVar[str] = "delete"
    lane: ClassVar[Lane] = Lane.DATA
    dataset: str
    version: int
    not_before: float
    cursor: int = 0


@dataclass(frozen=True, slots=True)
class ExportVersion:
    """Write version ``version`` as a file of ``format`` (``core.versions.exports``), unless it is written or being
    written."""

    kind: ClassVar[str] = "export"
    lane: ClassVar[Lane] = Lane.DATA
    dataset: str
    version: int
    format: str


@dataclass(frozen=True, slots=True)
class PushSinks:
    """Push the dataset's live version to its folder's sinks (``loading.pushing``): sent when version ``version``
    goes live or is rolled back or forward to; the push reads which version is live, so a late message changes
    nothing."""

    kind: ClassVar[str] = "push-sinks"
    lane: ClassVar[Lane] = Lane.CONTROL
    dataset: str
    version: int


@dataclass(frozen=True, slots=True)
class PlanJob:
    """Cut the inputs of enrichment job ``job`` into parts, and send one ``EnrichPart`` for each
    (``core.storage.job_keys``: its job file was written)."""

    kind: ClassVar[str] = "plan-job"
    lane: ClassVar[Lane] = Lane.DATA
    job: str


@dataclass(frozen=True, slots=True)
class EnrichPart:
    """Enrich part ``part`` of input ``source`` of job ``job``, as its plan says."""

    kind: ClassVar[str] = "enrich-part"
    lane: ClassVar[Lane] = Lane.DATA
    job: str
    source: int
    part: int


@dataclass(frozen=True, slots=True)
class JoinJob:
    """Join each input's enriched parts in order into its output, and write the job's summary."""

    kind: ClassVar[str] = "join-job"
    lane: ClassVar[Lane] = Lane.DATA
    job: str


JobCommand = PlanJob | EnrichPart | JoinJob
# What the loader (and the API) sends it
Command = BuildRequested | WriteChunk | DeleteVersion | ExportVersion | PushSinks | JobCommand
Message = QueueWired | ObjectsChanged | Command

_COMMANDS: dict[str, type[Command]] = {
    kind.kind: kind
    for kind in (BuildRequested, WriteChunk, DeleteVersion, ExportVersion, PushSinks, PlanJob, EnrichPart, JoinJob)
}


def dump(message: Command) -> str:
    return json.dumps({"kind": message.kind, **asdict(message)}, separators=(",", ":"))


def parse(body: str) -> Message:
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        raise Unparsable("not JSON") from None
    if not isinstance(document, dict):
        raise Unparsable("not a JSON object")
    if document.get("Event") == "s3:TestEvent":
        return QueueWired()
    if "Records" in document:
        return _notification(document["Records"])
    kind = _COMMANDS.get(document.get("kind"))  # type: ignore[arg-type]
    if kind is None:
        raise Unparsable(f"unknown kind {str(document.get('kind'))[:40]!r}")
    return _command(kind, document)


def _notification(records: Any) -> ObjectsChanged:
    if not isinstance(records, list):
        raise Unparsable("Records is not a list")
    keys = []
    for record in records:
        if not isinstance(record, dict) or record.get("eventSource") != "aws:s3":
            continue
        try:
            keys.append(unquote_plus(record["s3"]["object"]["key"]))
        except (KeyError, TypeError):
            raise Unparsable("an S3 record without an object key") from None
    return ObjectsChanged(tuple(keys))


def _command(kind: type[Command], document: dict[str, Any]) -> Command:
    values: dict[str, Any] = {}
    for spec in fields(kind):
        if spec.name not in document:
            if spec.default is not MISSING:
                continue  # a field with a default may be left out
            raise Unparsable(f"a {kind.kind} message without {spec.name}")
        value = document[spec.name]
        expected: tuple[type, ...] = {"str": (str,), "int": (int,), "float": (int, float)}[str(spec.type)]
        if not isinstance(value, expected) or isinstance(value, bool):
            raise Unparsable(f"{spec.name} of a {kind.kind} message is not {spec.type}")
        values[spec.name] = float(value) if spec.type == "float" else value  # type: ignore[arg-type]
    if "dataset" in values and not is_dataset_name(values["dataset"]):
        raise Unparsable(f"invalid dataset name {values['dataset'][:80]!r}")
    if "job" in values and not is_job_name(values["job"]):
        raise Unparsable(f"invalid job name {values['job'][:80]!r}")
    return kind(**values)
