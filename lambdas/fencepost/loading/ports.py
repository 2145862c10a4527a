"""What the loading steps need of the world, as narrow protocols: each step is given only the ones it uses.

The DynamoDB adapters (``fencepost.aws.dynamo``), the bucket (``fencepost.aws.s3``) and the queues
(``fencepost.aws.sqs``) implement them in production; in-memory fakes implement them in the state-machine tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.folders.settings_file import FolderSettings
from fencepost.core.storage.chunks import WriteOutcome
from fencepost.core.storage.items import Item
from fencepost.loading.messages import Command
from fencepost.model import BuildRecord, BuildState, DiffSummary, ObjectRef, Phase, Problem


class Clock(Protocol):
    def __call__(self) -> float: ...


class Logger(Protocol):
    def info(self, msg: object, *args: Any, **kwargs: Any) -> None: ...
    def warning(self, msg: object, *args: Any, **kwargs: Any) -> None: ...
    def exception(self, msg: object, *args: Any, **kwargs: Any) -> None: ...


class Metrics(Protocol):
    def add_metric(self, name: str, unit: MetricUnit, value: float) -> None: ...


class Telemetry(Protocol):
    @property
    def logger(self) -> Logger: ...
    @property
    def metrics(self) -> Metrics: ...


class Outbox(Protocol):
    """The loader's queues: each message goes to its lane's queue."""

    def send(self, message: Command, delay: float = 0) -> None: ...
    def send_all(self, messages: Iterable[Command]) -> int: ...


class TableRequests(Protocol):
    """Asks the tables function to write a version's Parquet file and bring the dataset's Glue tables up to date."""

    def __call__(self, dataset: str, version: int) -> None: ...


class SinkRequests(Protocol):
    """Asks for a push of a dataset's live version to its folder's sinks (``loading.pushing``)."""

    def __call__(self, dataset: str, version: int) -> None: ...


class Documents(Protocol):
    """JSON documents in the bucket: load reports and rejection notes."""

    def get_json(self, key: str) -> Any: ...
    def put_json(self, key: str, document: Any) -> None: ...


class Folder(Protocol):
    """A dataset's folder in the bucket."""

    def settings(self, dataset: str) -> FolderSettings: ...
    def list_data(self, dataset: str) -> list[ObjectRef]: ...
    def release_unfinished(self, dataset: str) -> bool:
        """Whether the folder's source is writing a release into it now (its manifest says so)."""
        ...

    def lines(self, key: str) -> Iterator[bytes]: ...


class KeptFiles(Protocol):
    """Files a build keeps beside its report (its pieces, its changes), deleted with it."""

    def delete_files(self, keys: list[str]) -> None: ...


class Writer(Protocol):
    """Bulk writes until a deadline; what is not written comes back in the outcome."""

    def put(self, items: Sequence[Item], *, deadline: float) -> WriteOutcome: ...
    def delete(self, keys: Sequence[Item], *, deadline: float) -> WriteOutcome: ...


class LoadProgress(Protocol):
    """Progress of a dataset's latest load (only the fields given change); False once a newer load took over."""

    def update_load(
        self,
        name: str,
        build: int,
        now: float,
        *,
        phase: Phase | None = None,
        rows_read: int | None = None,
        items_written: int | None = None,
        items: int | None = None,
        problems: list[Problem] | None = None,
        report: str | None = None,
        diff: DiffSummary | None = None,
    ) -> bool: ...


class BuildStates(Protocol):
    """Reading a build record and moving its state."""

    def get(self, dataset: str, build: int) -> BuildRecord | None: ...
    def set_state(self, dataset: str, build: int, state: BuildState, *, expect: Sequence[BuildState] = ()) -> bool: ...
