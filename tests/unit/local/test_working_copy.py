"""``make run``'s table in memory, saved to disk (``local.storage.WorkingCopy``), on SQLite files standing in for
DynamoDB Local's (which is SQLite too): what is saved, when, and that the file on disk is always whole."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from local import storage
from local.storage import DB_FILE, PREFIX, WorkingCopy


def _write(db: Path, *values: str) -> None:
    with contextlib.closing(sqlite3.connect(db)) as connection, connection:
        connection.execute("CREATE TABLE IF NOT EXISTS items (value TEXT)")
        connection.executemany("INSERT INTO items VALUES (?)", [(value,) for value in values])


def _read(db: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(db)) as connection:
        return [row[0] for row in connection.execute("SELECT value FROM items ORDER BY rowid")]


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    durable, memory = tmp_path / "var" / "dynamodb", tmp_path / "shm"
    memory.mkdir()
    return durable, memory


def test_the_table_runs_from_a_copy_in_memory_and_is_saved_back_at_close(places: tuple[Path, Path]) -> None:
    durable, memory = places
    durable.mkdir(parents=True)
    _write(durable / DB_FILE, "kept from the last run")
    copy = WorkingCopy(durable, memory)

    folder = copy.open()
    assert folder.parent == memory
    assert _read(folder / DB_FILE) == ["kept from the last run"]
    _write(folder / DB_FILE, "written in this run")
    assert _read(durable / DB_FILE) == ["kept from the last run"]  # not yet saved
    copy.close()

    assert _read(durable / DB_FILE) == ["kept from the last run", "written in this run"]
    assert not folder.exists()
    assert list(durable.iterdir()) == [durable / DB_FILE]  # no partial file left behind


def test_a_first_run_starts_empty_and_saves_what_it_wrote(places: tuple[Path, Path]) -> None:
    durable, memory = places
    copy = WorkingCopy(durable, memory)
    folder = copy.open()
    assert not (durable / DB_FILE).exists()

    _write(folder / DB_FILE, "first")
    copy.close()

    assert _read(durable / DB_FILE) == ["first"]


def test_save_copies_only_a_changed_table(places: tuple[Path, Path]) -> None:
    durable, memory = places
    copy = WorkingCopy(durable, memory)
    folder = copy.open()
    try:
        assert copy.save() is False  # nothing there yet
        _write(folder / DB_FILE, "a")
        assert copy.save() is True
        assert copy.save() is False  # unchanged since
        time.sleep(0.01)
        _write(folder / DB_FILE, "b")
        os.utime(folder / DB_FILE, (time.time() + 1, time.time() + 1))  # a later write, whatever the clock's grain
        assert copy.save() is True
        assert _read(durable / DB_FILE) == ["a", "b"]
        assert copy.saves == 2
    finally:
        copy.close()


def test_a_quiet_table_is_saved_without_waiting_for_the_stop(
    places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(storage, "QUIET_SECONDS", 0.2)
    monkeypatch.setattr(storage, "CHECK_SECONDS", 0.05)
    durable, memory = places
    copy = WorkingCopy(durable, memory)
    folder = copy.open()
    try:
        _write(folder / DB_FILE, "while running")
        deadline = time.monotonic() + 10
        while not (durable / DB_FILE).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _read(durable / DB_FILE) == ["while running"]
        assert copy.saves == 1
    finally:
        copy.close()


def test_without_a_memory_file_system_the_table_works_on_disk(tmp_path: Path) -> None:
    durable = tmp_path / "dynamodb"
    copy = WorkingCopy(durable, tmp_path / "no-such-folder")

    assert copy.in_memory is False
    assert copy.open() == durable
    _write(durable / DB_FILE, "direct")
    copy.close()
    assert _read(durable / DB_FILE) == ["direct"]


def test_copies_left_by_a_killed_run_are_removed_and_a_running_ones_kept(places: tuple[Path, Path]) -> None:
    durable, memory = places
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    orphan = memory / f"{PREFIX}{int(dead.stdout)}-abc"
    running = memory / f"{PREFIX}{os.getpid()}-def"
    for folder in (orphan, running):
        folder.mkdir()
        _write(folder / DB_FILE, "x")
    copy = WorkingCopy(durable, memory)

    copy.open()
    copy.close()

    assert not orphan.exists()
    assert running.exists()


def test_a_table_too_big_for_memory_is_worked_on_disk_and_nothing_is_left_in_memory(
    places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    durable, memory = places
    durable.mkdir(parents=True)
    _write(durable / DB_FILE, "kept")

    def full(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("local.storage.shutil.copyfile", full)
    copy = WorkingCopy(durable, memory)

    assert copy.open() == durable
    assert copy.in_memory is False
    assert list(memory.iterdir()) == []
    _write(durable / DB_FILE, "written")
    copy.close()
    assert _read(durable / DB_FILE) == ["kept", "written"]
