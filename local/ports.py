"""Loopback ports for the local services: one free now, handed to no other caller on this machine for a while.

A port is chosen in one process and bound seconds later, often by another (a child server, a stack started by a
test). Binding to check it is free says nothing about the next caller that draws the same number meanwhile, so each
port handed out is written down in a folder every process on the machine shares, and kept from every other caller
for ``HELD`` seconds: two stacks started side by side (the tests' workers, the bench) never get the same port.
"""

from __future__ import annotations

import fcntl
import os
import random
import socket
import tempfile
import time
from pathlib import Path

RANGE = (20000, 32000)  # below Linux's default ephemeral range (32768-60999), which outgoing connections draw from
HELD = 120.0  # seconds a port handed out is kept from every other caller
_HANDED = Path(tempfile.gettempdir()) / f"fencepost-ports-{os.getuid()}"


def free_port() -> int:
    """A loopback port free now, handed out to no other caller in the last ``HELD`` seconds; the kernel's own choice
    when the range is all taken (a port ``bind(0)`` hands out is one the next ``connect`` may take)."""
    try:
        _HANDED.mkdir(exist_ok=True)
        noted = True
    except OSError:  # no folder to note ports in (a read-only temp dir): free now is all that can be known
        noted = False
    for _ in range(256):
        port = random.randrange(*RANGE)
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


def _claim(port: int) -> bool:
    """Write ``port`` down as handed out now, unless another caller did in the last ``HELD`` seconds (one caller at a
    time reads and writes its note: a lock on the note itself)."""
    fd = os.open(_HANDED / str(port), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another caller is claiming it this instant
            return False
        note = os.read(fd, 32).decode(errors="replace").strip()
        now = time.time()
        try:
            if now - float(note) < HELD:
                return False
        except ValueError:  # a new note (empty) or a torn one: nobody holds the port
            pass
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, f"{now:.3f}".encode())
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
