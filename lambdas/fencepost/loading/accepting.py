"""A release a gate refused, accepted once by a person who looked at its diff (the admin module's ``accept``, and
``make fetch ACCEPT=1``).

Only the build the gate refused is accepted, and only while the folder still holds exactly the objects it was built
from (its report lists them): a release the source wrote since, which nobody looked at, is never let through. The
acceptance names the build request it makes, so it lets that one build past the gates and no later one; the build
says so in its diff (``load.diff.note``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from fencepost.core.folders.fingerprint import fingerprint
from fencepost.core.folders.settings_file import settings_digest
from fencepost.loading.messages import BuildRequested
from fencepost.loading.ports import Documents, Folder, Outbox
from fencepost.model import DatasetRecord, LoadStatus


class Acceptances(Protocol):
    def get(self, name: str, *, consistent: bool = False) -> DatasetRecord | None: ...
    def accept(self, name: str, sources: str) -> bool: ...
    def note_request(self, name: str, now: float) -> int: ...


class NotAccepted(Exception):
    """Why there is nothing to accept, or why what is asked cannot be accepted; the message says what to do."""


@dataclass(frozen=True, slots=True)
class Accepted:
    build: int  # the refused build accepted
    gate: str
    objects: int
    request: int  # the build request that goes past the gates


def acceptance(request: int, sources: str) -> str:
    """What the record holds: the one build request, and the sources, that may go past the gates."""
    return f"{request}:{sources}"


def accept_once(
    dataset: str,
    *,
    folder: Folder,
    reports: Documents,
    datasets: Acceptances,
    outbox: Outbox,
    clock: Callable[[], float],
    build: int | None = None,
) -> Accepted:
    """Accept the build of ``dataset`` a gate refused last (``build``, if given, must be it)."""
    record = datasets.get(dataset, consistent=True)
    if record is None:
        raise NotAccepted(f"no dataset named {dataset!r}")
    load = record.load
    gate = load.diff.gate if load.diff is not None else None
    if record.status != LoadStatus.FAILED or gate is None or load.version is None:
        raise NotAccepted(f"{dataset}'s latest build ({load.version}) was not refused by a gate: nothing to accept")
    if build is not None and build != load.version:
        raise NotAccepted(f"build {build} is not {dataset}'s latest: build {load.version} is (look at its diff)")
    if record.requests != record.planned:
        raise NotAccepted(f"{dataset}'s folder changed since build {load.version}: look at the next build's diff")
    report = reports.get_json(load.report) if load.report else None
    if report is None:  # load reports expire (the bucket's lifecycle rule): a refusal is accepted soon or not at all
        raise NotAccepted(f"the report of build {load.version} is gone: upload the folder's files again to build anew")
    refused = sorted((o["key"], o["etag"]) for o in report.get("objects", []))
    objects = folder.list_data(dataset)
    if not objects or refused != sorted((o.key, o.etag) for o in objects):
        raise NotAccepted(f"{dataset}'s folder no longer holds what build {load.version} was built from")
    request = datasets.note_request(dataset, clock())
    sources = fingerprint(((o.key, o.etag) for o in objects), settings_digest(folder.settings(dataset)))
    datasets.accept(dataset, acceptance(request, sources))
    outbox.send(BuildRequested(dataset, request))
    return Accepted(load.version, gate, len(objects), request)
