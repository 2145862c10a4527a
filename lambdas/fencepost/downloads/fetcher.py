"""Downloads from a publisher, politely and safely.

- conditional: the last download's ``ETag`` and ``Last-Modified`` go as ``If-None-Match`` / ``If-Modified-Since``;
  a ``304`` is an answer (nothing new), not a download;
- retried on what may pass (a 5xx, a 429, a dropped connection, a timeout) with backoff doubling from
  ``backoff``, waiting what ``Retry-After`` asks when it asks no more than ``max_wait``;
- redirects followed (at most ``max_redirects``), only to https when ``https_only``; credentials (basic
  authentication) are sent to the first address only, never to where it redirects (a publisher's download link
  commonly redirects to a storage host with its own signed address);
- bounded: a body longer than ``max_bytes`` (announced or read) fails before anything is kept, and a body cut short
  of its ``Content-Length`` fails;
- streamed into a file in ``directory``, hashed (SHA-256) as it is read, within a deadline the caller gives (a server
  that trickles a byte a minute is stopped there, not at the function's timeout).

Every failure is a ``FetchError`` whose message names the address as the source wrote it (``{license_key}`` left
as a placeholder): no credential reaches a message, a log or a report.
"""

from __future__ import annotations

import base64
import email.utils
import hashlib
import http.client
import socket
import ssl
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

CHUNK = 1 << 20
RETRIED_STATUS = frozenset({429, 500, 502, 503, 504})


class FetchError(Exception):
    """A download that failed; the message is safe to show (it names the address with its placeholders)."""


@dataclass(frozen=True, slots=True)
class FetchPolicy:
    timeout: float = 30.0  # seconds to connect, and between two reads
    attempts: int = 4
    backoff: float = 2.0  # seconds before the first retry, doubled after each
    max_wait: float = 120.0  # the longest Retry-After honoured; a longer one fails the check
    max_redirects: int = 5
    https_only: bool = True


@dataclass(frozen=True, slots=True)
class Request:
    url: str  # the address to fetch, placeholders filled in (may hold a credential: never shown)
    shown: str  # the address as written in the source, for messages
    auth: tuple[str, str] | None = None  # basic authentication: user, password
    etag: str | None = None
    last_modified: str | None = None
    max_bytes: int = 512 << 20


@dataclass(frozen=True, slots=True)
class Fetched:
    """A new body in ``path``, or (``path`` None) the publisher's word that nothing changed since the validators."""

    path: Path | None
    etag: str | None = None
    last_modified: str | None = None
    sha256: str = ""
    size: int = 0


class _Redirects(urllib.request.HTTPRedirectHandler):
    def __init__(self, policy: FetchPolicy, shown: str) -> None:
        self.policy, self.shown = policy, shown
        self.max_redirections = policy.max_redirects  # type: ignore[misc]  # urllib reads it from the instance

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:  # noqa: PLR0917 (urllib's signature)
        scheme = urlsplit(newurl).scheme
        if scheme != "https" and (self.policy.https_only or urlsplit(req.full_url).scheme == "https"):
            raise FetchError(f"{self.shown} redirected to a plain http address: refused (https only)")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class Fetcher:
    def __init__(
        self,
        policy: FetchPolicy | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        user_agent: str = "",
        tls: ssl.SSLContext | None = None,
    ) -> None:
        """``tls``: the certificates trusted (None: the system's)."""
        self.policy = policy or FetchPolicy()
        self.sleep = sleep
        self.user_agent = user_agent or "fencepost (feed refresh)"
        self.tls = tls

    def get(self, request: Request, directory: Path, *, deadline: float | None = None) -> Fetched:
        """Fetch ``request`` into a new file in ``directory``; retried as the policy says. ``deadline`` (a
        monotonic instant): the download fails rather than run past it, however slowly the server trickles."""
        wait = self.policy.backoff
        for attempt in range(1, self.policy.attempts + 1):
            try:
                return self._once(request, directory, deadline)
            except _Retry as retry:
                pause = retry.after if retry.after is not None else wait
                if attempt == self.policy.attempts:
                    raise FetchError(f"{request.shown}: {retry.reason} ({attempt} attempts)") from None
                if retry.after is not None and retry.after > self.policy.max_wait:
                    raise FetchError(
                        f"{request.shown}: {retry.reason}, and asked to wait {retry.after:.0f} s "
                        f"(more than {self.policy.max_wait:.0f} s): checked again later"
                    ) from None
                if deadline is not None and time.monotonic() + pause >= deadline:
                    raise FetchError(f"{request.shown}: {retry.reason}; no time left to try again") from None
                self.sleep(pause)
                wait *= 2
        raise AssertionError("unreachable")

    def text(
        self, url: str, shown: str, auth: tuple[str, str] | None, directory: Path, *, deadline: float | None = None
    ) -> str:
        """A small text document (a checksum file): at most 64 KB."""
        request = Request(url=url, shown=shown, auth=auth, max_bytes=64 << 10)
        fetched = self.get(request, directory, deadline=deadline)
        assert fetched.path is not None
        try:
            return fetched.path.read_bytes().decode("utf-8", "replace")
        finally:
            fetched.path.unlink(missing_ok=True)

    def _once(self, request: Request, directory: Path, deadline: float | None) -> Fetched:
        if self.policy.https_only and urlsplit(request.url).scheme != "https":
            raise FetchError(f"{request.shown}: only https addresses are fetched here")
        opener = urllib.request.build_opener(
            _Redirects(self.policy, request.shown), urllib.request.HTTPSHandler(context=self.tls)
        )
        try:
            response = opener.open(self._request(request), timeout=self.policy.timeout)
        except urllib.error.HTTPError as error:
            error.close()
            if error.code == 304:
                return Fetched(path=None, etag=request.etag, last_modified=request.last_modified)
            if error.code in RETRIED_STATUS:
                raise _Retry(f"the server answered {error.code}", _retry_after(error.headers)) from None
            raise FetchError(f"{request.shown}: the server answered {error.code} {error.reason}") from None
        except FetchError:
            raise
        except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
            raise _Retry(f"no answer ({_why(error)})") from None
        with response:
            return self._body(request, response, directory, deadline)

    def _request(self, request: Request) -> urllib.request.Request:
        made = urllib.request.Request(
            request.url, headers={"User-Agent": self.user_agent, "Accept-Encoding": "identity"}
        )
        if request.etag:
            made.add_header("If-None-Match", request.etag)
        if request.last_modified:
            made.add_header("If-Modified-Since", request.last_modified)
        if request.auth is not None:
            token = base64.b64encode(f"{request.auth[0]}:{request.auth[1]}".encode()).decode()
            made.add_unredirected_header("Authorization", f"Basic {token}")  # never sent on to a redirect
        return made

    def _body(self, request: Request, response: Any, directory: Path, deadline: float | None) -> Fetched:
        announced = response.headers.get("Content-Length")
        length = int(announced) if announced and announced.isdigit() else None
        if length is not None and length > request.max_bytes:
            raise FetchError(
                f"{request.shown}: the body is {length:,} bytes, more than max_bytes ({request.max_bytes:,})"
            )
        digest, size = hashlib.sha256(), 0
        handle = tempfile.NamedTemporaryFile(dir=directory, prefix="fetch-", delete=False)  # noqa: SIM115
        path = Path(handle.name)
        try:
            with handle:
                size = _copy(response, handle, digest, request, deadline)
            if length is not None and size != length:
                raise _Retry(f"the body ended after {size:,} of {length:,} bytes")
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        return Fetched(
            path=path,
            etag=response.headers.get("ETag"),
            last_modified=response.headers.get("Last-Modified"),
            sha256=digest.hexdigest(),
            size=size,
        )


def _copy(response: Any, handle: IO[bytes], digest: Any, request: Request, deadline: float | None) -> int:
    size = 0
    while True:
        if deadline is not None and time.monotonic() >= deadline:
            raise FetchError(f"{request.shown}: the download did not finish in the time the check has ({size:,} bytes)")
        try:
            chunk = response.read1(CHUNK)  # what has arrived (read() would wait for a whole chunk)
        except http.client.IncompleteRead as error:
            raise _Retry(f"the body ended after {size + len(error.partial):,} bytes, short of its length") from None
        except (OSError, http.client.HTTPException) as error:
            raise _Retry(f"the body was cut off after {size:,} bytes ({_why(error)})") from None
        if not chunk:
            return size
        size += len(chunk)
        if size > request.max_bytes:
            raise FetchError(f"{request.shown}: the body is more than max_bytes ({request.max_bytes:,} bytes)")
        digest.update(chunk)
        try:
            handle.write(chunk)
        except OSError as error:  # a full disk: the check fails, the folder untouched
            raise FetchError(f"{request.shown}: the download could not be kept ({type(error).__name__})") from None


class _Retry(Exception):
    def __init__(self, reason: str, after: float | None = None) -> None:
        super().__init__(reason)
        self.reason, self.after = reason, after


def _retry_after(headers: Any) -> float | None:
    value = (headers or {}).get("Retry-After")
    if not value:
        return None
    if value.strip().isdigit():
        return float(value.strip())
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _why(error: BaseException) -> str:
    """Why a connection failed, without the address (which may hold a credential)."""
    if isinstance(error, urllib.error.URLError) and not isinstance(error.reason, str):
        error = error.reason
    if isinstance(error, socket.timeout | TimeoutError):
        return "timed out"
    return type(error).__name__ if not isinstance(error, urllib.error.URLError) else "unreachable"
