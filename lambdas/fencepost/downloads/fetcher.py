"""Downloads from a publisher, politely and safely.

- conditional: the last download's ``ETag`` and ``Last-Modified`` go as ``If-None-Match`` / ``If-Modified-Since``;
  a ``304`` is an answer (nothing new), not a download;
- retried on what may pass (a 5xx, a 429, a dropped connection, a timeout) with backoff doubling from
  ``backoff``, waiting what ``Retry-After`` asks when it asks no more than ``max_wait``;
- redirects followed (at most ``max_redirects``), only to https when ``https_only``; credentials (basic
  authentication) are sent to the first address only, never to where it redirects (a publisher's download link
  commonly redirects to a storage host with its own signed address);
- pointed only at public addresses, and secrets sent only to the hosts they are bound to, on the first address and
  on every redirect (``fencepost.downloads.destinations``), each connection going to the address checked
  (``fencepost.downloads.connection``);
- bounded: a body longer than ``max_bytes`` (announced or read) fails before anything is kept, and a body cut short
  of its ``Content-Length`` fails (``fencepost.downloads.bodies``);
- streamed into a file in ``directory``, hashed (SHA-256) as it is read, within a deadline the caller gives: the
  connect, the handshake, every header line and every chunk of the body wait no longer than the time left.

Every failure is a ``FetchError`` whose message names the address as the source wrote it (``{license_key}`` left
as a placeholder): no credential reaches a message, a log or a report; the publisher's own text in it (a reason
phrase) is cut short (``fencepost.downloads.bounds.said``).
"""

from __future__ import annotations

import base64
import email.utils
import http.client
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import urljoin, urlsplit

from fencepost.core.sources.urls import public_url
from fencepost.downloads.bodies import Fetched, kept
from fencepost.downloads.bounds import Budget, FetchError, Retry, said, why
from fencepost.downloads.connection import Answer, Target, ask
from fencepost.downloads.destinations import (
    Credential,
    Resolver,
    check_credentials,
    checked_addresses,
    system_resolver,
)

RETRIED_STATUS: Final = frozenset({429, 500, 502, 503, 504})
REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})
MAX_ADDRESS: Final = 2048  # characters of a redirect's address (a _source.json's url has the same bound)


@dataclass(frozen=True, slots=True)
class FetchPolicy:
    timeout: float = 30.0  # seconds to connect, and between two reads
    attempts: int = 4
    backoff: float = 2.0  # seconds before the first retry, doubled after each
    max_wait: float = 120.0  # the longest Retry-After honoured; a longer one fails the check
    max_redirects: int = 5
    https_only: bool = True
    allow_loopback: bool = False  # sources on this machine's loopback addresses (make run and tests only)


@dataclass(frozen=True, slots=True)
class Request:
    url: str  # the address to fetch, placeholders filled in (may hold a credential: never shown)
    shown: str  # the address as written in the source, for messages
    auth: tuple[str, str] | None = None  # basic authentication: user, password
    etag: str | None = None
    last_modified: str | None = None
    max_bytes: int = 512 << 20
    credentials: tuple[Credential, ...] = ()  # the secrets the address or the authentication carries


class Fetcher:
    def __init__(
        self,
        policy: FetchPolicy | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        user_agent: str = "",
        tls: ssl.SSLContext | None = None,
        resolve: Resolver = system_resolver,
    ) -> None:
        """``tls``: the certificates trusted (None: the system's); ``resolve``: a host's addresses (getaddrinfo)."""
        self.policy = policy or FetchPolicy()
        self.sleep = sleep
        self.user_agent = user_agent or "fencepost (feed refresh)"
        self.tls = tls
        self.resolve = resolve

    def get(self, request: Request, directory: Path, *, deadline: float | None = None) -> Fetched:
        """Fetch ``request`` into a new file in ``directory``; retried as the policy says. ``deadline`` (a
        monotonic instant): the download fails rather than run past it, however slowly the server trickles."""
        wait = self.policy.backoff
        for attempt in range(1, self.policy.attempts + 1):
            try:
                return self._once(request, directory, Budget(request.shown, self.policy.timeout, deadline))
            except Retry as retry:
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

    def text(self, request: Request, directory: Path, *, deadline: float | None = None) -> str:
        """A small text document (a checksum file): at most 64 KB, never conditional."""
        small = Request(request.url, request.shown, request.auth, max_bytes=64 << 10, credentials=request.credentials)
        fetched = self.get(small, directory, deadline=deadline)
        assert fetched.path is not None
        try:
            return fetched.path.read_bytes().decode("utf-8", "replace")
        finally:
            fetched.path.unlink(missing_ok=True)

    def _once(self, request: Request, directory: Path, budget: Budget) -> Fetched:
        if self.policy.https_only and urlsplit(request.url).scheme != "https":
            raise FetchError(f"{request.shown}: only https addresses are fetched here")
        url = request.url
        for hop in range(self.policy.max_redirects + 1):
            with self._ask(request, url, hop, budget) as answer:
                response = answer.response
                if response.status in REDIRECTS:
                    url = self._redirected(request, url, response.getheader("Location"))
                    continue
                if response.status == 304:
                    return Fetched(path=None, etag=request.etag, last_modified=request.last_modified)
                if response.status in RETRIED_STATUS:
                    raise Retry(f"the server answered {response.status}", _retry_after(response))
                if not 200 <= response.status < 300:
                    reason = said(response.reason or "")
                    raise FetchError(f"{request.shown}: the server answered {response.status} {reason}".rstrip())
                return kept(response, request.shown, request.max_bytes, directory, budget)
        raise FetchError(f"{request.shown}: more than {self.policy.max_redirects} redirects")

    def _ask(self, request: Request, url: str, hop: int, budget: Budget) -> Answer:
        """One request: to ``url``'s checked addresses, carrying only what may go there."""
        parts = urlsplit(url)
        host, https = parts.hostname or "", parts.scheme == "https"
        shown = request.shown if hop == 0 else f"{request.shown} (redirected to {said(public_url(url))})"
        # The secrets the source put in its address or its authentication go to the first address; a redirect
        # carries one on only if its address holds it
        check_credentials([c for c in request.credentials if hop == 0 or c.within(url)], host, shown)
        headers = {"User-Agent": self.user_agent, "Accept-Encoding": "identity"}
        if request.etag:
            headers["If-None-Match"] = request.etag
        if request.last_modified:
            headers["If-Modified-Since"] = request.last_modified
        if request.auth is not None and hop == 0:  # never sent on to a redirect
            token = base64.b64encode(f"{request.auth[0]}:{request.auth[1]}".encode()).decode()
            headers["Authorization"] = f"Basic {token}"
        try:
            port = parts.port or (443 if https else 80)
            addresses = checked_addresses(
                host, port, self.resolve, budget, allow_loopback=self.policy.allow_loopback, shown=shown
            )
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            return ask(Target(host, port, https, addresses, path), headers, self.tls, budget)
        except FetchError:
            raise
        except (OSError, http.client.HTTPException) as error:
            raise Retry(f"no answer ({why(error)})") from None
        except ValueError as error:  # http.client refused the address (a control character)
            raise FetchError(f"{shown}: the address cannot be requested ({type(error).__name__})") from None

    def _redirected(self, request: Request, url: str, location: str | None) -> str:
        if not location:
            raise FetchError(f"{request.shown}: the server redirected without a Location")
        target = urljoin(url, location.strip())
        try:
            parts = urlsplit(target)
            _ = parts.port  # a port that is not a number raises here
        except ValueError:
            parts = None
        usable = len(target) <= MAX_ADDRESS and target.isascii() and not any(c.isspace() for c in target)
        if parts is None or not usable or parts.scheme not in ("http", "https") or not parts.hostname:
            raise FetchError(f"{request.shown}: redirected to an address that cannot be fetched")
        if parts.scheme != "https" and (self.policy.https_only or urlsplit(url).scheme == "https"):
            raise FetchError(f"{request.shown} redirected to a plain http address: refused (https only)")
        return target


def _retry_after(response: Any) -> float | None:
    value = (response.getheader("Retry-After") or "").strip()
    if not value or len(value) > 64:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
