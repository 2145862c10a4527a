"""What a source check needs of the world, as narrow protocols: the bucket's folders, the table's record of each
source's last check, the secret store, and the downloads. ``fencepost.aws`` and ``fencepost.downloads`` provide them;
the tests' fakes do too."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from fencepost.core.sources.schedule import SourceState
from fencepost.core.sources.spec import Secret
from fencepost.downloads import Fetched, Request


class SourceFolders(Protocol):
    def source_datasets(self) -> list[str]:
        """The datasets whose folder holds a ``_source.json``."""
        ...

    def read_source(self, dataset: str) -> tuple[str, bytes] | None:
        """The key and contents of the dataset's ``_source.json``; None when it has none."""
        ...

    def fetched_objects(self, dataset: str) -> dict[str, str]:
        """The objects of the dataset's ``_fetched/`` folder: key to ETag."""
        ...

    def put_fetched(self, key: str, path: Path) -> str:
        """Store the file at ``key``; its ETag."""
        ...

    def delete_fetched(self, keys: list[str]) -> None: ...

    def put_release(
        self, dataset: str, objects: dict[str, str] | None, last_modified: dict[str, str] | None = None
    ) -> None:
        """The release manifest: None as a release starts being written, its objects (key to ETag) once written,
        with each object's ``Last-Modified`` as the publisher sent it (``last_modified``, key to header)."""
        ...


class SourceStates(Protocol):
    def source_state(self, dataset: str) -> SourceState | None: ...

    def source_states(self) -> dict[str, SourceState]:
        """Every dataset's, by name (one read)."""
        ...

    def put_source_state(self, dataset: str, state: SourceState) -> None: ...

    def forget_source_state(self, dataset: str) -> None: ...

    def take_round(self, holder: str, now: int, until: int) -> bool:
        """Take the lease of the sources' rounds for ``holder`` until ``until`` (ms), unless another holds one that
        has not expired at ``now``; whether it was taken (``fencepost.sources.rounds``)."""
        ...

    def end_round(self, holder: str) -> None:
        """Give the lease back, if ``holder`` still holds it."""
        ...


class Secrets(Protocol):
    def secret_value(self, secret: Secret) -> str:
        """The secret's value; raises ``SecretUnavailable`` when it cannot be read."""
        ...

    def secret_hosts(self, secret: Secret) -> frozenset[str] | None:
        """The hosts the secret may be sent to, by its own tag (``fencepost.core.sources.bindings``); None when it
        has no such tag. Raises ``SecretUnavailable`` when it cannot be read."""
        ...


class Downloads(Protocol):
    def get(self, request: Request, directory: Path, *, deadline: float | None = None) -> Fetched: ...

    def text(self, request: Request, directory: Path, *, deadline: float | None = None) -> str: ...
