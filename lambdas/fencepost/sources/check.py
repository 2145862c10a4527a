"""One check of one source: fetch what changed, verify it, and write it into the folder's ``_fetched/`` objects.

The release is written only when every file of the source was fetched, verified and unpacked: a failure at any point
(the publisher, the checksum, an archive's layout, a secret) leaves the folder as it was, so the live version and the
next build are untouched. What is written builds a new version through the loader's usual path and gates. A check
that finds nothing new (a ``304``, or the same bytes again, with the folder's objects still those the last check
wrote) writes nothing, builds nothing, and is counted. Objects the new release no longer has are deleted after it is
written.

Each check has its own time (``CheckRules.check_seconds``, within the round's deadline): its downloads, checksums
and unpacking stop when it is up, and the check is recorded FAILED saying so, so the round goes on to the next
source. A round checks the sources longest unchecked first, one round at a time (``fencepost.sources.rounds``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fencepost.core.sources.schedule import Download, Outcome, SourceState, short
from fencepost.core.sources.spec import FeedFile, Source, parse_source
from fencepost.core.sources.urls import public_url
from fencepost.core.storage.objects import FolderError, fetched_prefix, release_key
from fencepost.downloads import FetchError, OutOfTime, unpack
from fencepost.errors import SecretUnavailable
from fencepost.sources import rounds
from fencepost.sources.needs import Downloads, Secrets, SourceFolders, SourceStates
from fencepost.sources.outcomes import FAILING, NO_SOURCE, WORK_PREFIX, Checked, CheckRules
from fencepost.sources.requests import Given, filled, given

_SHA256 = re.compile(r"\b([0-9a-fA-F]{64})\b")


@dataclass
class _Staged:
    downloads: dict[str, Download] = field(default_factory=dict)  # by file (_file_id)
    files: dict[str, list[tuple[str, Path]]] = field(default_factory=dict)  # by file: (key, contents) to write


@dataclass(kw_only=True)
class Checker:
    folders: SourceFolders
    states: SourceStates
    secrets: Secrets
    downloads: Downloads
    rules: CheckRules
    clock: Callable[[], int]  # now, in ms
    workdir: Path | None = None
    deadline: float | None = None  # a monotonic instant: the round's (or the invocation's); no check runs past it
    _round: rounds.Lease | None = field(default=None, init=False, repr=False)  # a round's copy only (check_due)

    def check_due(self) -> list[Checked]:
        """Every source whose check is due, one after the other, those checked longest ago first (their states read
        in one go), each within its own time (``CheckRules.check_seconds``); one round at a time
        (``RoundUnderWay`` when another holds the lease, taken before the round's first write:
        ``fencepost.sources.rounds``). The state of a source whose
        ``_source.json`` is gone is forgotten (its ``_fetched/`` objects stay: they are the folder's data until
        someone deletes them)."""
        with rounds.lease(self.states, self.clock, self.deadline) as held:
            # The round runs on a copy of its own that holds the lease: a check on demand on this checker, from
            # another thread meanwhile, takes none
            round_checker = dataclasses.replace(self)
            round_checker._round = held
            return round_checker._due()

    def _due(self) -> list[Checked]:
        known = self.states.source_states()
        folders = self.folders.source_datasets()
        results = []
        for dataset in rounds.order(folders, known):
            if self.deadline is not None and time.monotonic() >= self.deadline:
                break  # the round's time is up: the sources left are checked first at the next round
            results.append(self._check(dataset, False, known.get(dataset)))
        named = {checked.dataset for checked in results if checked.reason != NO_SOURCE}
        if len(results) == len(folders):
            for dataset in sorted(set(known) - named):
                self._forget(dataset)
        return results

    def check(self, dataset: str, *, force: bool = False) -> Checked:
        """Check ``dataset``'s source if it is due (or ``force``), and record what the check found."""
        state = self.states.source_state(dataset)
        checked = self._check(dataset, force, state)
        if checked.reason == NO_SOURCE and state is not None:
            self._forget(dataset)
        return checked

    def _forget(self, dataset: str) -> None:
        """A folder that no longer names a source: its state goes, and its release manifest (a release cut short
        would otherwise keep every build of the folder waiting)."""
        self._hold()
        self.folders.delete_fetched([release_key(dataset)])
        self.states.forget_source_state(dataset)

    def _check(self, dataset: str, force: bool, known: SourceState | None) -> Checked:
        found = self.folders.read_source(dataset)
        if found is None:
            return Checked(dataset, None, NO_SOURCE)
        key, raw = found
        state = known or SourceState()
        try:
            source = parse_source(raw, key, least_every=self.rules.least_every, https_only=self.rules.https_only)
        except FolderError as error:
            checked, state = self._invalid(dataset, state, raw, short(str(error)))
            stale = state.stale_after(state.every, self.clock())
            return dataclasses.replace(checked, failing=True, stale=stale)  # unusable until someone fixes it
        if source.paused:
            if not state.paused or state.digest != source.digest:
                state = self._record(dataset, state.paused_by(source))
            return self._watched(Checked(dataset, None, "paused: set paused to false to check it"), state, source)
        due = force or state.due(source, self.clock())
        if due and self._hold():  # the state was read before the round's lease: another round may have checked it
            state = self.states.source_state(dataset) or SourceState()
            due = force or state.due(source, self.clock())
        if not due:
            return self._watched(Checked(dataset, None, "not due"), state, source)
        try:
            with tempfile.TemporaryDirectory(dir=self.workdir, prefix=WORK_PREFIX) as directory:
                checked, state = self._fetch(dataset, source, state, Path(directory))
        except OutOfTime as error:
            reason = f"{error}: a check has {self.rules.check_seconds:g} s (FETCH_CHECK_SECONDS), within the round's"
        except (FetchError, SecretUnavailable) as error:
            reason = str(error)
        except Exception as error:  # a bucket, table or disk failure, or a bug: one source's, never the round's
            reason = f"the check failed ({type(error).__name__}): the folder is untouched; the next check retries"
        else:
            return self._watched(checked, state, source)
        state = self._record(dataset, self._checked(state, source, Outcome.FAILED, reason=reason))
        return self._watched(Checked(dataset, Outcome.FAILED, state.reason), state, source)

    def _watched(self, checked: Checked, state: SourceState, source: Source) -> Checked:
        stale = not source.paused and state.stale_after(source.every, self.clock())
        return dataclasses.replace(checked, failing=state.failures >= FAILING, stale=stale)

    def _checked(self, state: SourceState, source: Source, outcome: Outcome, **found: Any) -> SourceState:
        return state.checked(source, outcome, self.clock(), least_every=self.rules.least_every, **found)

    def _fetch(self, dataset: str, source: Source, state: SourceState, directory: Path) -> tuple[Checked, SourceState]:
        present = self.folders.fetched_objects(dataset)
        staged = _Staged()
        carried = given(source, self.secrets, max_bytes=self.rules.max_bytes, deadline=self._until())
        for feed in source.files:
            file_id = _file_id(feed, carried.params)
            prior = state.downloads.get(file_id)
            intact = prior is not None and all(present.get(k) == etag for k, etag in prior.objects)
            request = carried.request(
                feed.url,
                etag=prior.etag if intact and prior else None,
                last_modified=prior.last_modified if intact and prior else None,
            )
            fetched = self.downloads.get(request, directory, deadline=carried.deadline)
            if fetched.path is None and (prior is None or not intact):
                raise FetchError(
                    f"{public_url(feed.url)}: answered 304 Not Modified to a request that was not conditional"
                )
            if prior is not None and (fetched.path is None or (intact and fetched.sha256 == prior.sha256)):
                staged.downloads[file_id] = Download(fetched.etag, fetched.last_modified, prior.sha256, prior.objects)
                continue
            assert fetched.path is not None
            self._verify(feed, fetched.sha256, carried, directory)
            named = [(feed.name, fetched.path)] if feed.unpack is None else self._unpacked(feed, fetched.path, carried)
            staged.files[file_id] = [(fetched_prefix(dataset) + name, path) for name, path in named]
            staged.downloads[file_id] = Download(fetched.etag, fetched.last_modified, fetched.sha256)
        if not staged.files and set(present) <= {key for d in staged.downloads.values() for key, _ in d.objects}:
            state = self._checked(state, source, Outcome.UNCHANGED, downloads=staged.downloads)
            return Checked(dataset, Outcome.UNCHANGED), self._record(dataset, state)
        return self._write(dataset, source, state, staged, present)

    def _write(
        self, dataset: str, source: Source, state: SourceState, staged: _Staged, present: Mapping[str, str]
    ) -> tuple[Checked, SourceState]:
        keys = [key for objects in staged.files.values() for key, _ in objects]
        if len(set(keys)) != len(keys):
            raise FetchError(f"{source.shown_url()}: two files of the release have one name")
        self.folders.put_release(dataset, None)  # written first and last: no build of half a release
        downloads: dict[str, Download] = {}
        for file_id, fetched in staged.downloads.items():  # in the source's order
            objects = staged.files.get(file_id)
            written = None if objects is None else tuple((k, self.folders.put_fetched(k, path)) for k, path in objects)
            downloads[file_id] = fetched if written is None else dataclasses.replace(fetched, objects=written)
        kept = {key for download in downloads.values() for key, _ in download.objects}
        gone = sorted(set(present) - kept)
        if gone:
            self.folders.delete_fetched(gone)
        released = {key: etag for d in downloads.values() for key, etag in d.objects}
        dates = {key: d.last_modified for d in downloads.values() if d.last_modified for key, _ in d.objects}
        self.folders.put_release(dataset, released, dates)  # each object's Last-Modified: its data's own date
        state = self._record(dataset, self._checked(state, source, Outcome.CHANGED, downloads=downloads))
        return Checked(dataset, Outcome.CHANGED, written=tuple(keys), deleted=tuple(gone)), state

    def _until(self) -> float:
        """The deadline of a check starting now: its own time, within the round's."""
        until = time.monotonic() + self.rules.check_seconds
        return until if self.deadline is None else min(until, self.deadline)

    def _unpacked(self, feed: FeedFile, path: Path, carried: Given) -> list[tuple[str, Path]]:
        assert feed.unpack is not None
        return unpack(
            path,
            feed.unpack,
            feed.members,
            max_bytes=carried.max_bytes,
            directory=path.parent,
            shown=public_url(feed.url),
            deadline=carried.deadline,
        )

    def _verify(self, feed: FeedFile, sha256: str, carried: Given, directory: Path) -> None:
        if feed.sha256_url is None:
            return
        shown = public_url(feed.sha256_url)
        text = self.downloads.text(carried.request(feed.sha256_url), directory, deadline=carried.deadline)
        found = _SHA256.search(text)
        if found is None:
            raise FetchError(f"{shown}: holds no SHA-256 checksum")
        if found[1].lower() != sha256:
            raise FetchError(
                f"{public_url(feed.url)}: the download's SHA-256 is {sha256[:16]}..., the publisher's "
                f"{found[1][:16].lower()}...: refused (a damaged or tampered download)"
            )

    def _invalid(self, dataset: str, state: SourceState, raw: bytes, reason: str) -> tuple[Checked, SourceState]:
        refused = _refused(state, raw, reason, self.clock())
        if refused is not None:
            state = self._record(dataset, refused)
        return Checked(dataset, Outcome.INVALID, reason), state

    def _hold(self) -> bool:
        """Before a round's first write, its lease (``rounds.Lease.hold``); a check on demand takes none."""
        return self._round is not None and self._round.hold()

    def _record(self, dataset: str, state: SourceState) -> SourceState:
        self._hold()
        self.states.put_source_state(dataset, state)
        return state


def _refused(state: SourceState, raw: bytes, reason: str, now: int) -> SourceState | None:
    """The state of a source whose ``_source.json`` (``raw``) is refused, when this version of the file was not
    refused before (said once per version of the file, not at every tick); else None."""
    digest = "invalid:" + hashlib.sha256(raw).hexdigest()[:16]
    if state.digest == digest:
        return None
    return dataclasses.replace(
        state,
        digest=digest,
        first_checked=state.first_checked if state.first_checked is not None else now,
        last_checked=now,
        outcome=Outcome.INVALID.value,
        reason=reason,
        failures=state.failures + 1,
        checks=state.checks + 1,
    )


def _file_id(feed: FeedFile, params: Mapping[str, str]) -> str:
    """What a file's download is kept under in the table: a digest of all the source says of it and of its address
    as fetched (which may hold a key): a changed parameter, name or member list makes another file, fetched afresh."""
    return hashlib.sha256(f"{feed!r}\n{filled(feed.url, params)}".encode()).hexdigest()[:16]
