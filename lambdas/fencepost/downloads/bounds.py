"""What bounds a download: the time a check has (``Budget``), the failures it ends in (``FetchError``, and
``OutOfTime`` when the check's deadline came) or that may pass (``Retry``), and how much of a publisher's own text a
message may quote (``said``).

A publisher chooses its reason phrases, header values and member names: quoted in a reason, which is stored in the
table and served to anyone by ``GET /datasets/{name}``, each is cut to ``PUBLISHER_TEXT`` characters and made
printable, so a 60 KB reason phrase is stored as its status code and a short excerpt.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass
from typing import Final

PUBLISHER_TEXT: Final = 200  # characters of a publisher's text a message may quote


class FetchError(Exception):
    """A download that failed; the message is safe to show (it names the address with its placeholders)."""


class OutOfTime(FetchError):
    """The check's deadline came before the download or the unpacking finished."""


class Retry(Exception):
    """A failure that may pass (a 5xx, a 429, a dropped connection): the download is tried again, after ``after``
    seconds when the publisher asked (Retry-After)."""

    def __init__(self, reason: str, after: float | None = None) -> None:
        super().__init__(reason)
        self.reason, self.after = reason, after


def why(error: BaseException) -> str:
    """Why a connection failed, without the address (which may hold a credential)."""
    if isinstance(error, TimeoutError):
        return "timed out"
    if isinstance(error, socket.gaierror):
        return "the host's name does not resolve"
    return type(error).__name__


def said(text: str, limit: int = PUBLISHER_TEXT) -> str:
    """A publisher's text as a message may quote it: printable, at most ``limit`` characters."""
    cut = "".join(c if c.isprintable() else " " for c in text[: limit + 1]).strip()
    return cut if len(cut) <= limit else cut[: limit - 3] + "..."


@dataclass(frozen=True, slots=True)
class Budget:
    """The time one download has: no single wait longer than ``timeout`` seconds, and none past ``deadline`` (a
    monotonic instant; None: no deadline)."""

    shown: str  # the address as messages name it
    timeout: float
    deadline: float | None = None

    def left(self, doing: str) -> float:
        """Seconds the next wait (a connect, a handshake, a read) may take; ``OutOfTime`` when none is left."""
        if self.deadline is None:
            return self.timeout
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise OutOfTime(f"{self.shown}: the check ran out of time while {doing}")
        return min(self.timeout, left)

    def check(self, doing: str) -> None:
        """``OutOfTime`` if the deadline has come."""
        self.left(doing)
