"""``make run --table disk``: DynamoDB Local's table kept in ``var/dynamodb``, worked on as a copy in memory.

DynamoDB Local's on-disk store is SQLite with a rollback journal, each write its own transaction synced to disk:
the shared 450k-row file took 1,082 s to load through it, against 168 s in memory. So the table runs from a copy in
``/dev/shm`` (memory, on Linux: about 245 s for that file, the journal's file operations being the rest of the
difference), which is saved to ``var/dynamodb``:

- a few seconds after the last write (``QUIET_SECONDS``), with SQLite's online backup, which copies a consistent
  state under a read lock; a save never starts while writes are still arriving;
- and at stop, after DynamoDB Local has exited.

A save replaces the file on disk in one rename, so ``var/dynamodb`` always holds a whole table. A crash loses at
most the writes since the last save; ``make run`` then rebuilds what the table lacks from the objects it mirrors
(``local.__main__``). Without ``/dev/shm`` (macOS), DynamoDB Local works on ``var/dynamodb`` directly, slower.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from pathlib import Path
from typing import Final

from local.dynamodb import LocalStackError

MEMORY, DISK = "memory", "disk"  # where DynamoDB Local keeps the table (StackConfig.store)

DB_FILE: Final = "shared-local-instance.db"  # DynamoDB Local's file with -sharedDb
MEMORY_ROOT: Final = Path("/dev/shm")
QUIET_SECONDS: Final = 3.0
CHECK_SECONDS: Final = 1.0
PREFIX: Final = "fencepost-dynamodb-"


class WorkingCopy:
    """``open()`` gives the folder DynamoDB Local should use; ``close()`` (after it has exited) saves and cleans up."""

    def __init__(self, durable: Path, memory_root: Path | None = MEMORY_ROOT) -> None:
        self.durable = durable
        self.memory_root = memory_root if memory_root is not None and _usable(memory_root) else None
        self.folder: Path | None = None
        self.saves = 0
        self._saved_mtime: float | None = None
        self._stop = threading.Event()
        self._saver: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def in_memory(self) -> bool:
        return self.memory_root is not None

    def open(self) -> Path:
        self.durable.mkdir(parents=True, exist_ok=True)
        if self.memory_root is None:
            self.folder = self.durable
            return self.folder
        _remove_orphans(self.memory_root)
        self.folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=self.memory_root))
        saved = self.durable / DB_FILE
        try:
            if saved.exists():
                shutil.copyfile(saved, self.folder / DB_FILE)
        except OSError:  # /dev/shm too small for the table: work on disk, slower, rather than not at all
            shutil.rmtree(self.folder, ignore_errors=True)
            self.memory_root = None
            self.folder = self.durable
            return self.folder
        self._saved_mtime = _changed_at(self.folder)
        self._saver = threading.Thread(target=self._save_when_quiet, name="dynamodb-saver", daemon=True)
        self._saver.start()
        return self.folder

    def save(self) -> bool:
        """Copy the working table to disk if it changed since the last save; True if it did."""
        if self.folder is None or self.folder == self.durable:
            return False
        source = self.folder / DB_FILE
        with self._lock:
            mtime = _changed_at(self.folder)
            if mtime is None or mtime == self._saved_mtime:
                return False
            partial = self.durable / f"{DB_FILE}.saving"
            partial.unlink(missing_ok=True)
            with (
                contextlib.closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as reader,
                contextlib.closing(sqlite3.connect(partial)) as writer,
            ):
                reader.backup(writer)  # the table as the last commit left it
            os.replace(partial, self.durable / DB_FILE)
            self._saved_mtime = mtime
            self.saves += 1
            return True

    def close(self) -> None:
        """Save a last time and remove the working copy; call it once DynamoDB Local has exited."""
        self._stop.set()
        if self._saver is not None:
            self._saver.join(timeout=30)
        if self.folder is None or self.folder == self.durable:
            return
        self.save()
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None

    def _save_when_quiet(self) -> None:
        while not self._stop.wait(CHECK_SECONDS):
            assert self.folder is not None
            mtime = _changed_at(self.folder)
            if mtime is None or mtime == self._saved_mtime:
                continue
            if time.time() - mtime >= QUIET_SECONDS:
                with contextlib.suppress(sqlite3.Error, OSError):  # busy or gone: the next quiet moment saves
                    self.save()


def table_storage(store: str, data_dir: Path | None) -> tuple[WorkingCopy | None, Path | None, Path | None]:
    """Where DynamoDB Local keeps the table (``StackConfig.store``): the working copy on disk (None: in memory),
    the folder DynamoDB Local is given (None: ``-inMemory``), and its log (None without a data dir)."""
    log = None
    if data_dir:
        data_dir.mkdir(parents=True, exist_ok=True)
        log = data_dir / "dynamodb.log"
    if store not in (MEMORY, DISK):
        raise LocalStackError(f"the table is kept in {MEMORY!r} or on {DISK!r}, not {store!r}")
    if store == MEMORY:
        return None, None, log
    if data_dir is None:
        raise LocalStackError("a table kept on disk needs a data dir")
    storage = WorkingCopy(data_dir / "dynamodb", MEMORY_ROOT)
    return storage, storage.open(), log


def _usable(root: Path) -> bool:
    return root.is_dir() and os.access(root, os.W_OK)


def _changed_at(folder: Path) -> float | None:
    """When the table last changed (each commit writes to the file)."""
    try:
        return (folder / DB_FILE).stat().st_mtime
    except FileNotFoundError:
        return None


def _remove_orphans(root: Path) -> None:
    """Working copies left by runs that ended without closing (killed): their process is gone."""
    for folder in root.glob(f"{PREFIX}*"):
        pid = folder.name.removeprefix(PREFIX).split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
