"""Loopback ports for the local services: one free now, and kept from this user's other callers on the machine.

A port is chosen in one process and bound seconds later, often by another (a child server, a stack started by a
test). Binding to check it is free says nothing about the next caller that draws the same number meanwhile, so each
port handed out is noted in a folder of the user's own that all their processes share, and kept from every other
caller for ``HELD`` seconds: two stacks started side by side (the tests' workers, the bench) do not get the same
port. Where no such folder can be used (a read-only temp dir, a folder someone else made), a port free now is handed
out as before.
"""

from __future__ import annotations

import fcntl
import os
import random
import socket
import stat
import tempfile
import time
from pathlib import Path

RANGE = (20000, 32000)  # below Linux's default ephemeral range (32768-60999), which outgoing connections draw from
HELD = 600.0  # seconds a port handed out is kept from every other caller: longer than any stack takes to bind it
_HANDED = Path(tempfile.gettempdir()) / f"fencepost-ports-{os.getuid()}"
_RANDOM = random.Random()  # its own draws: a test that seeds ``random`` gives every worker the same sequence
_now = time.time


def free_port() -> int:
    """A loopback port free now, handed out to no other caller in the last ``HELD`` seconds; the kernel's own choice
    when the range is all taken (a port ``bind(0)`` hands out is one the next ``connect`` may take)."""
    noted = _own_folder()
    for _ in range(256):
        port = _RANDOM.randrange(*RANGE)
        if (not noted or _claim(port)) and not _bound(port):
            return port
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        found: int = sock.getsockname()[1]
        return found


def port_in_use(port: int) -> bool:
    """Whether something answers on the loopback ``port``."""
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _own_folder() -> bool:
    """Whether the notes' folder is there (made now if not), a folder of this user's alone."""
    try:
        _HANDED.mkdir(mode=0o700, exist_ok=True)
        found = os.lstat(_HANDED)
    except OSError:
        return False
    return stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid() and not found.st_mode & 0o022


def _claim(port: int) -> bool:
    """Note ``port`` as handed out now, unless another caller did in the last ``HELD`` seconds (one caller at a time
    reads and writes a note: a lock on the note itself). A note that cannot be read or written claims nothing."""
    try:
        fd = os.open(_HANDED / str(port), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:
        return True  # a full disk, a link where the note should be: free now is all that can be known
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        note = os.read(fd, 32).decode(errors="replace").strip()
        now = _now()
        try:
            if abs(now - float(note)) < HELD:  # a note a little ahead (written rounded up; a clock set back) too
                return False
        except ValueError:  # a new note (empty) or a torn one: nobody holds the port
            pass
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, f"{now:.3f}".encode())
        return True
    except BlockingIOError:  # another caller is claiming it this instant
        return False
    except OSError:
        return True
    finally:
        os.close(fd)  # closing drops the lock


def _bound(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
        return False
