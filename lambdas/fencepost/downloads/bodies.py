"""A publisher's answer kept: its body streamed into a file, hashed (SHA-256) as it is read, bounded by
``max_bytes`` (announced or read) and by the time left; a body cut short of its ``Content-Length`` is a failure that
may pass (retried). Its validators are kept to make the next request conditional, unless longer than
``MAX_VALIDATOR`` (they are stored in the table)."""

from __future__ import annotations

import hashlib
import http.client
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

from fencepost.downloads.bounds import Budget, FetchError, Retry, why

CHUNK: Final = 1 << 20
MAX_VALIDATOR: Final = 256  # characters of an ETag or Last-Modified kept (real ones are under 100)


@dataclass(frozen=True, slots=True)
class Fetched:
    """A new body in ``path``, or (``path`` None) the publisher's word that nothing changed since the validators."""

    path: Path | None
    etag: str | None = None
    last_modified: str | None = None
    sha256: str = ""
    size: int = 0


def kept(response: Any, shown: str, max_bytes: int, directory: Path, budget: Budget) -> Fetched:
    """The body of ``response`` (an ``http.client.HTTPResponse``) in a new file in ``directory``."""
    announced = response.getheader("Content-Length")
    length = int(announced) if announced and announced.isdigit() and len(announced) < 20 else None
    if length is not None and length > max_bytes:
        raise FetchError(f"{shown}: the body is {length:,} bytes, more than max_bytes ({max_bytes:,})")
    digest = hashlib.sha256()
    handle = tempfile.NamedTemporaryFile(dir=directory, prefix="fetch-", delete=False)  # noqa: SIM115
    path = Path(handle.name)
    try:
        with handle:
            size = _copy(response, handle, digest, shown=shown, max_bytes=max_bytes, budget=budget)
        if length is not None and size != length:
            raise Retry(f"the body ended after {size:,} of {length:,} bytes")
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return Fetched(
        path=path,
        etag=_validator(response.getheader("ETag")),
        last_modified=_validator(response.getheader("Last-Modified")),
        sha256=digest.hexdigest(),
        size=size,
    )


def _copy(response: Any, handle: IO[bytes], digest: Any, *, shown: str, max_bytes: int, budget: Budget) -> int:
    size = 0
    while True:
        budget.check(f"downloading ({size:,} bytes so far)")
        try:
            chunk = response.read1(CHUNK)  # what has arrived (read() would wait for a whole chunk)
        except http.client.IncompleteRead as error:
            raise Retry(f"the body ended after {size + len(error.partial):,} bytes, short of its length") from None
        except FetchError:
            raise
        except (OSError, http.client.HTTPException) as error:
            raise Retry(f"the body was cut off after {size:,} bytes ({why(error)})") from None
        if not chunk:
            return size
        size += len(chunk)
        if size > max_bytes:
            raise FetchError(f"{shown}: the body is more than max_bytes ({max_bytes:,} bytes)")
        digest.update(chunk)
        try:
            handle.write(chunk)
        except OSError as error:  # a full disk: the check fails, the folder untouched
            raise FetchError(f"{shown}: the download could not be kept ({type(error).__name__})") from None


def _validator(value: str | None) -> str | None:
    """An ``ETag`` or ``Last-Modified`` kept: only a short, printable one."""
    return value if value and len(value) <= MAX_VALIDATOR and value.isprintable() else None
