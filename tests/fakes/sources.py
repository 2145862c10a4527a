"""A bucket's source folders, the table's source states and a secret store, in memory, for ``fencepost.sources``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from fencepost.core.sources.bindings import tagged_hosts
from fencepost.core.sources.schedule import SourceState
from fencepost.core.sources.spec import Secret
from fencepost.core.storage.objects import (
    DEFAULT_DATASET,
    SOURCE_NAME,
    fetched_prefix,
    is_fetched,
    prefixes_of,
    release_document,
    release_key,
)
from fencepost.errors import SecretUnavailable


class FakeSourceFolders:
    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}
        self.puts: list[str] = []
        self.deletes: list[str] = []
        self.releases: list[dict[str, str] | None] = []

    def etag(self, key: str) -> str:
        return '"' + hashlib.md5(self.objects[key]).hexdigest() + '"'

    def source_datasets(self) -> list[str]:
        """Every folder, and the default dataset, as the bucket's adapter lists them."""
        return sorted({DEFAULT_DATASET, *(key.split("/")[0] for key in self.objects if "/" in key)})

    def read_source(self, dataset: str) -> tuple[str, bytes] | None:
        for prefix in prefixes_of(dataset):
            if prefix + SOURCE_NAME in self.objects:
                return prefix + SOURCE_NAME, self.objects[prefix + SOURCE_NAME]
        return None

    def fetched_objects(self, dataset: str) -> dict[str, str]:
        prefix = fetched_prefix(dataset)
        return {key: self.etag(key) for key in self.objects if key.startswith(prefix) and is_fetched(key)}

    def put_fetched(self, key: str, path: Path) -> str:
        self.objects[key] = path.read_bytes()
        self.puts.append(key)
        return self.etag(key)

    def put_release(
        self, dataset: str, objects: dict[str, str] | None, last_modified: dict[str, str] | None = None
    ) -> None:
        self.objects[release_key(dataset)] = json.dumps(release_document(objects, last_modified)).encode()
        self.releases.append(objects)

    def delete_fetched(self, keys: list[str]) -> None:
        for key in keys:
            self.objects.pop(key, None)
            self.deletes.append(key)


class FakeSourceStates:
    def __init__(self) -> None:
        self.states: dict[str, SourceState] = {}
        self.writes = 0

    def source_state(self, dataset: str) -> SourceState | None:
        return self.states.get(dataset)

    def source_states(self) -> dict[str, SourceState]:
        return dict(self.states)

    def put_source_state(self, dataset: str, state: SourceState) -> None:
        self.states[dataset] = state
        self.writes += 1

    def forget_source_state(self, dataset: str) -> None:
        self.states.pop(dataset, None)

    lease: tuple[str, int] | None = None  # the rounds' lease: holder, until (ms)

    tries = 0  # take_round calls: each a conditional write on the table

    def take_round(self, holder: str, now: int, until: int) -> bool:
        self.tries += 1
        if self.lease is not None and self.lease[1] >= now:
            return False
        self.lease = (holder, until)
        return True

    def end_round(self, holder: str) -> None:
        if self.lease is not None and self.lease[0] == holder:
            self.lease = None


class FakeSecrets:
    def __init__(self, values: dict[str, str] | None = None) -> None:
        self.values = values or {}
        self.hosts: dict[str, str] = {}  # each secret's fencepost:hosts tag, by name (none: untagged)
        self.reads: list[str] = []

    def secret_hosts(self, secret: Secret) -> frozenset[str] | None:
        return tagged_hosts(self.hosts.get(secret.name))

    def secret_value(self, secret: Secret) -> str:
        self.reads.append(secret.name)
        if secret.name not in self.values:
            raise SecretUnavailable(f"secret {secret.name!r} could not be read (ResourceNotFoundException)")
        return self.values[secret.name]
