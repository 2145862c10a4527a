"""A release a gate refused, accepted once by a person who looked at its diff (the admin module's ``accept``, and
``make fetch ACCEPT=1``): the folder's current sources are recorded as accepted, and a build of them is requested;
that build skips the gates (its diff says so), and any other build meets them as before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from fencepost.core.folders import settings_digest
from fencepost.core.sources import fingerprint
from fencepost.loading.messages import BuildRequested
from fencepost.loading.ports import Folder, Outbox


class Acceptances(Protocol):
    def accept(self, name: str, sources: str) -> bool: ...
    def note_request(self, name: str, now: float) -> int: ...


def accept_once(
    dataset: str, *, folder: Folder, datasets: Acceptances, outbox: Outbox, clock: Callable[[], float]
) -> tuple[int, int] | None:
    """Accept what ``dataset``'s folder holds now; the objects accepted and the build request made. None when the
    folder holds no data or there is no such dataset."""
    settings = folder.settings(dataset)
    objects = folder.list_data(dataset)
    if not objects:
        return None
    sources = fingerprint(((ref.key, ref.etag) for ref in objects), settings_digest(settings))
    if not datasets.accept(dataset, sources):
        return None
    request = datasets.note_request(dataset, clock())
    outbox.send(BuildRequested(dataset, request))
    return len(objects), request
