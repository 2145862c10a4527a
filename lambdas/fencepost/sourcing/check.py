"""One check of one source: fetch what changed, verify it, and write it into the folder's ``_fetched/`` objects.

The release is written only when every file of the source was fetched, verified and unpacked: a failure at any point
(the publisher, the checksum, an archive's layout, a secret) leaves the folder as it was, so the live version and the
next build are untouched. What is written builds a new version through the loader's usual path and gates. A check
that finds nothing new (a ``304``, or the same bytes again, with the folder's objects still those the last check
wrote) writes nothing, builds nothing, and is counted. Objects the new release no longer has are deleted after it is
written.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fencepost.core.feeds.schedule import Download, Outcome, SourceState
from fencepost.core.feeds.spec import FeedFile, Source, parse_source
from fencepost.core.objects import FolderError, fetched_prefix
from fencepost.downloads import FetchError, Request, unpack
from fencepost.sourcing.needs import Downloads, Secrets, SecretUnavailable, SourceFolders, SourceStates

_SHA256 = re.compile(r"\b([0-9a-fA-F]{64})\b")


@dataclass(frozen=True, slots=True)
class CheckRules:
    least_every: int = 300  # seconds: the shortest interval a source may ask
    https_only: bool = True
    max_bytes: int = 512 << 20  # the loader's largest object: no download or member may be larger


@dataclass(frozen=True, slots=True)
class Checked:
    dataset: str
    outcome: Outcome | None  # None: not due (or no source)
    reason: str = ""
    written: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()


@dataclass
class _Staged:
    downloads: dict[str, Download] = field(default_factory=dict)  # by file URL
    files: dict[str, list[tuple[str, Path]]] = field(default_factory=dict)  # by file URL: (key, contents) to write


@dataclass(kw_only=True)
class Checker:
    folders: SourceFolders
    states: SourceStates
    secrets: Secrets
    downloads: Downloads
    rules: CheckRules
    clock: Callable[[], int]  # now, in ms
    workdir: Path | None = None

    def check_due(self) -> list[Checked]:
        """Every source whose check is due, one after the other."""
        return [self.check(dataset) for dataset in self.folders.source_datasets()]

    def check(self, dataset: str, *, force: bool = False) -> Checked:
        """Check ``dataset``'s source if it is due (or ``force``), and record what the check found."""
        found = self.folders.read_source(dataset)
        if found is None:
            return Checked(dataset, None, "the folder has no _source.json")
        key, raw = found
        state = self.states.source_state(dataset) or SourceState()
        try:
            source = parse_source(raw, key, least_every=self.rules.least_every, https_only=self.rules.https_only)
        except FolderError as error:
            return self._invalid(dataset, state, raw, str(error))
        if not force and not state.due(source, self.clock()):
            return Checked(dataset, None, "not due")
        state = state.for_source(source)
        try:
            with tempfile.TemporaryDirectory(dir=self.workdir, prefix="fetch-") as directory:
                return self._fetch(dataset, source, state, Path(directory))
        except (FetchError, SecretUnavailable) as error:
            self._record(dataset, self._checked(state, source, Outcome.FAILED, reason=str(error)))
            return Checked(dataset, Outcome.FAILED, str(error))

    def _checked(self, state: SourceState, source: Source, outcome: Outcome, **found: Any) -> SourceState:
        return state.checked(source, outcome, self.clock(), least_every=self.rules.least_every, **found)

    def _fetch(self, dataset: str, source: Source, state: SourceState, directory: Path) -> Checked:
        present = self.folders.fetched_objects(dataset)
        staged = _Staged()
        params = self._params(source)
        auth = (params[source.basic_auth[0]], params[source.basic_auth[1]]) if source.basic_auth else None
        limit = min(source.max_bytes or self.rules.max_bytes, self.rules.max_bytes)
        for feed in source.files:
            prior = state.downloads.get(feed.url)
            intact = prior is not None and all(present.get(k) == etag for k, etag in prior.objects)
            request = Request(
                url=_filled(feed.url, params),
                shown=feed.url,
                auth=auth,
                etag=prior.etag if intact and prior else None,
                last_modified=prior.last_modified if intact and prior else None,
                max_bytes=limit,
            )
            fetched = self.downloads.get(request, directory)
            if fetched.path is None and (prior is None or not intact):
                raise FetchError(f"{feed.url}: answered 304 Not Modified to a request that was not conditional")
            if prior is not None and (fetched.path is None or (intact and fetched.sha256 == prior.sha256)):
                staged.downloads[feed.url] = Download(fetched.etag, fetched.last_modified, prior.sha256, prior.objects)
                continue
            assert fetched.path is not None
            self._verify(feed, fetched.sha256, params, auth, directory)
            named = [(feed.name, fetched.path)] if feed.unpack is None else self._unpacked(feed, fetched.path, limit)
            staged.files[feed.url] = [(fetched_prefix(dataset) + name, path) for name, path in named]
            staged.downloads[feed.url] = Download(fetched.etag, fetched.last_modified, fetched.sha256)
        if not staged.files:
            self._record(dataset, self._checked(state, source, Outcome.UNCHANGED, downloads=staged.downloads))
            return Checked(dataset, Outcome.UNCHANGED)
        return self._write(dataset, source, state, staged, present)

    def _write(
        self, dataset: str, source: Source, state: SourceState, staged: _Staged, present: Mapping[str, str]
    ) -> Checked:
        keys = [key for objects in staged.files.values() for key, _ in objects]
        if len(set(keys)) != len(keys):
            raise FetchError(f"{source.shown_url()}: two files of the release have one name")
        downloads: dict[str, Download] = {}
        for feed in source.files:
            download = staged.downloads[feed.url]
            objects = staged.files.get(feed.url)
            if objects is not None:
                written = tuple((key, self.folders.put_fetched(key, path)) for key, path in objects)
                download = dataclasses.replace(download, objects=written)
            downloads[feed.url] = download
        kept = {key for download in downloads.values() for key, _ in download.objects}
        gone = sorted(set(present) - kept)
        if gone:
            self.folders.delete_fetched(gone)
        self._record(dataset, self._checked(state, source, Outcome.CHANGED, downloads=downloads))
        return Checked(dataset, Outcome.CHANGED, written=tuple(keys), deleted=tuple(gone))

    def _unpacked(self, feed: FeedFile, path: Path, limit: int) -> list[tuple[str, Path]]:
        assert feed.unpack is not None
        return unpack(path, feed.unpack, feed.members, max_bytes=limit, directory=path.parent, shown=feed.url)

    def _verify(
        self, feed: FeedFile, sha256: str, params: Mapping[str, str], auth: tuple[str, str] | None, directory: Path
    ) -> None:
        if feed.sha256_url is None:
            return
        text = self.downloads.text(_filled(feed.sha256_url, params), feed.sha256_url, auth, directory)
        found = _SHA256.search(text)
        if found is None:
            raise FetchError(f"{feed.sha256_url}: holds no SHA-256 checksum")
        if found[1].lower() != sha256:
            raise FetchError(
                f"{feed.url}: the download's SHA-256 is {sha256[:16]}..., the publisher's {found[1][:16].lower()}...: "
                "refused (a damaged or tampered download)"
            )

    def _params(self, source: Source) -> dict[str, str]:
        return {
            name: value if isinstance(value, str) else self.secrets.secret_value(value)
            for name, value in source.params.items()
        }

    def _invalid(self, dataset: str, state: SourceState, raw: bytes, reason: str) -> Checked:
        digest = "invalid:" + hashlib.sha256(raw).hexdigest()[:16]
        if state.digest != digest:  # said once per version of the file, not at every tick
            now = self.clock()
            self._record(
                dataset,
                SourceState(
                    digest=digest,
                    last_checked=now,
                    last_changed=state.last_changed,
                    last_ok=state.last_ok,
                    outcome=Outcome.INVALID.value,
                    reason=reason,
                    failures=state.failures + 1,
                    checks=state.checks + 1,
                    unchanged=state.unchanged,
                    downloads=state.downloads,
                ),
            )
        return Checked(dataset, Outcome.INVALID, reason)

    def _record(self, dataset: str, state: SourceState) -> None:
        self.states.put_source_state(dataset, state)


def _filled(url: str, params: Mapping[str, str]) -> str:
    """The address with its placeholders filled in, each value quoted as one part of a URL."""
    return url.format_map({name: quote(value, safe="") for name, value in params.items()})
