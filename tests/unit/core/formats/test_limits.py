"""The loader's limits: bounded, linear line splitting, and a build held to its limits (lines, bytes per object and
per build, rows, the deadline checked by bytes), which a folder's settings may lower but never raise."""

from __future__ import annotations

import gzip
import io
import time
from collections.abc import Iterator
from typing import Any

import pytest

from fencepost.core.folders.limits import FolderLimits, Limits
from fencepost.core.folders.settings_file import FolderSettings
from fencepost.core.formats.base import FileError, ReadOptions
from fencepost.core.formats.lines import split_lines
from fencepost.core.storage.objects import FolderError
from fencepost.declared import SettingsError
from fencepost.loading.reading import LoadFailure, Reader
from fencepost.model import ObjectRef
from fencepost.settings import LoaderSettings
from tests.fakes import FakeTelemetry

ROW = b"1.0.0.0,1.0.0.255,AU\n"  # 21 bytes


def _lines(data: bytes, limits: Limits, size: int = 7) -> list[bytes]:
    return list(split_lines(io.BytesIO(data).read, limits, size))


# -- splitting -----------------------------------------------------------------------------------------------------


def test_lines_keep_their_endings_across_blocks_and_the_last_may_have_none() -> None:
    data = b"a,b\nlonger line\r\n\n" + b"x" * 30 + b"\nlast"
    assert _lines(data, Limits()) == data.splitlines(keepends=True)
    assert _lines(b"", Limits()) == []


def test_a_line_longer_than_the_limit_stops_reading_at_its_line() -> None:
    limits = Limits(max_line_bytes=10)
    # Given a line of exactly the limit (its ending included), then one a byte longer
    data = b"123456789\n" + b"1234567890\n" + b"next\n"
    got: list[bytes] = []
    with pytest.raises(FileError) as raised:
        got.extend(split_lines(io.BytesIO(data).read, limits, 4))
    assert got == [b"123456789\n"]
    assert raised.value.line == 2
    assert "longer than 10 bytes (MAX_LINE_BYTES)" in raised.value.reason


def test_a_line_without_end_is_never_held_beyond_the_limit() -> None:
    # Given one gigabyte of zeros (never produced: the reader asks for blocks until the line is too long)
    asked: list[int] = []

    def zeros(size: int) -> bytes:
        asked.append(size)
        return bytes(size) if len(asked) < 1024 else b""

    with pytest.raises(FileError, match="longer than 4,096 bytes") as raised:
        list(split_lines(zeros, Limits(max_line_bytes=4096), 1024))
    assert raised.value.line == 1
    assert len(asked) == 5  # 5 KiB read, not 1 MiB


def test_an_object_is_read_up_to_its_limit_and_no_further() -> None:
    limits = Limits(max_object_bytes=len(ROW) * 3)
    assert _lines(ROW * 3, limits) == [ROW] * 3  # exactly the limit
    got: list[bytes] = []
    with pytest.raises(FileError) as raised:
        got.extend(split_lines(io.BytesIO(ROW * 5).read, limits, 8))
    assert got == [ROW] * 3
    assert raised.value.line == 4
    assert "more than 63 bytes, decompressed (MAX_OBJECT_BYTES)" in raised.value.reason


def test_a_gzip_bomb_stops_at_the_object_limit_in_moments() -> None:
    # Given 230 KB of gzip that expands to 96 MB of rows
    bomb = gzip.compress(ROW * (96_000_000 // len(ROW)), 9)
    assert len(bomb) < 250_000
    started = time.monotonic()
    with pytest.raises(FileError, match="more than 4,194,304 bytes"):
        list(split_lines(gzip.GzipFile(fileobj=io.BytesIO(bomb)).read, Limits(max_object_bytes=4 << 20)))
    assert time.monotonic() - started < 2


def test_splitting_is_linear_in_the_bytes_read_however_long_the_line() -> None:
    # One 16 MiB line read a KiB at a time: joining the pending bytes block by block would copy ~130 GB
    line = b"x" * (16 << 20) + b"\n"
    started = time.monotonic()
    assert _lines(line, Limits(max_line_bytes=32 << 20), 1024) == [line]
    assert time.monotonic() - started < 3


# -- a build held to its limits ---------------------------------------------------------------------------------------


class Files:
    def __init__(self, objects: dict[str, bytes]) -> None:
        self.objects = objects
        self.opened: list[str] = []

    def lines(self, key: str) -> Iterator[bytes]:
        self.opened.append(key)
        return iter(self.objects[key].splitlines(keepends=True))


class Progress:
    def update_load(self, *_: Any, **__: Any) -> bool:
        return True


class Ticking:
    """A clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _read(
    objects: dict[str, bytes],
    *,
    limits: Limits | None = None,
    folder: dict[str, int] | None = None,
    clock: Ticking | None = None,
    deadline: float = float("inf"),
) -> Files:
    files = Files(objects)
    reader = Reader(
        files=files,
        datasets=Progress(),
        telemetry=FakeTelemetry(),
        clock=clock or Ticking(0),
        monotonic=clock or Ticking(0),
        limits=limits or Limits(),
    )
    refs = [ObjectRef(key, "etag", len(body)) for key, body in objects.items()]
    options = ReadOptions(limits=FolderLimits("geo/_settings.json", tuple((folder or {}).items())))
    reader.read("geo", 1, refs, options, deadline)
    return files


def _failure(objects: dict[str, bytes], **kwargs: Any) -> tuple[str, int | None, str]:
    with pytest.raises(LoadFailure) as raised:
        _read(objects, **kwargs)
    problem = raised.value.problem
    return problem.object, problem.line, problem.reason


def test_the_rows_of_a_build_are_counted_across_its_objects() -> None:
    objects = {"geo/a.csv": ROW * 3, "geo/b.csv": ROW * 3}
    _read(objects, limits=Limits(max_build_rows=6))
    where, line, reason = _failure(objects, limits=Limits(max_build_rows=5))
    assert (where, line) == ("geo/b.csv", 3)
    assert "more than 5 rows together (MAX_BUILD_ROWS; every line counts)" in reason


def test_the_bytes_of_a_build_are_counted_across_its_objects() -> None:
    objects = {"geo/a.csv": ROW * 3, "geo/b.csv": ROW * 3}
    where, line, reason = _failure(objects, limits=Limits(max_build_bytes=len(ROW) * 4 + 1))
    assert (where, line) == ("geo/b.csv", 2)
    assert "more than 85 bytes together, decompressed (MAX_BUILD_BYTES)" in reason


def test_an_object_over_its_limit_fails_at_its_line() -> None:
    where, line, reason = _failure({"geo/a.csv": ROW * 9}, limits=Limits(max_object_bytes=len(ROW) * 2))
    assert (where, line) == ("geo/a.csv", 3)
    assert "(MAX_OBJECT_BYTES)" in reason


def test_a_folder_may_lower_a_limit_and_is_named_as_its_source() -> None:
    where, line, reason = _failure({"geo/a.csv": ROW * 9}, folder={"max_build_rows": 4})
    assert (where, line) == ("geo/a.csv", 5)
    assert "more than 4 rows together (limits.max_build_rows of geo/_settings.json" in reason
    where, line, reason = _failure({"geo/a.csv": b"start,end,country\n" + ROW}, folder={"max_line_bytes": 20})
    assert (where, line) == ("geo/a.csv", 2)
    assert "longer than 20 bytes (limits.max_line_bytes of geo/_settings.json)" in reason


def test_a_folder_may_not_raise_a_limit() -> None:
    files = Files({"geo/a.csv": ROW})
    reader = Reader(files=files, datasets=Progress(), telemetry=FakeTelemetry(), clock=Ticking(0), monotonic=Ticking(0))
    options = ReadOptions(limits=FolderLimits("geo/_settings.json", (("max_build_rows", 10_000_001),)))
    with pytest.raises(LoadFailure) as raised:
        reader.read("geo", 1, [ObjectRef("geo/a.csv", "e", 1)], options, float("inf"))
    assert raised.value.problem.object == "geo/_settings.json"
    assert "limits.max_build_rows is 10,000,001, above the loader's MAX_BUILD_ROWS of 10,000,000" in str(raised.value)
    assert files.opened == []  # nothing was read


def test_the_deadline_is_checked_by_bytes_so_long_lines_cannot_escape_it() -> None:
    # Given lines of 600 KB (within the line limit) and a clock past the deadline at its first reading after the start
    line = b"1.0.0.0,1.0.0.255," + b"x" * 600_000 + b"\n"
    where, number, reason = _failure({"geo/a.csv": line * 50}, clock=Ticking(10), deadline=15)
    # Then reading stops after about a megabyte, not after 4,096 lines
    assert (where, number) == ("geo/a.csv", 2)
    assert "took longer than one invocation allows" in reason


def test_a_folder_whose_objects_cannot_be_listed_in_one_item_fails_before_reading() -> None:
    objects = {f"geo/{'k' * 900}-{n:04}.csv": ROW for n in range(300)}
    with pytest.raises(LoadFailure) as raised:
        _read(objects)
    assert "the folder has 300 objects, whose list takes" in str(raised.value)
    assert "in at most 262,144 bytes (about 27" in str(raised.value)


def test_column_names_that_cannot_be_stored_in_one_item_fail_the_load() -> None:
    header = b"start,end," + b",".join(f"c{n:06}{'x' * 100}".encode() for n in range(700)) + b"\n"
    row = b"1.0.0.0,1.0.0.255," + b",".join(b"v" for _ in range(700)) + b"\n"
    where, _, reason = _failure({"geo/a.csv": header + row})
    assert where == "geo/a.csv"
    assert "the 700 column names take 75,603 bytes" in reason
    assert "in at most 65,536 bytes" in reason


# -- where the limits come from ------------------------------------------------------------------------------------


def test_folder_settings_parse_the_limits_they_lower() -> None:
    settings = FolderSettings.parse(
        b'{"limits": {"max_build_rows": 1000, "max_line_bytes": 4096}}', "geo/_settings.json"
    )
    assert settings.read_options.limits == FolderLimits(
        "geo/_settings.json", (("max_build_rows", 1000), ("max_line_bytes", 4096))
    )


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (b'{"limits": 5}', "limits must be an object"),
        (b'{"limits": {"max_rows": 5}}', "unknown limits \\['max_rows'\\]"),
        (b'{"limits": {"max_build_rows": 0}}', "limits.max_build_rows must be a whole number, 1 or more"),
        (b'{"limits": {"max_build_rows": true}}', "limits.max_build_rows must be a whole number"),
        (b'{"limits": {"max_build_rows": 1.5}}', "limits.max_build_rows must be a whole number"),
    ],
)
def test_folder_limits_that_cannot_be_used_are_settings_errors(document: bytes, message: str) -> None:
    with pytest.raises(FolderError, match=message):
        FolderSettings.parse(document, "geo/_settings.json")


ENV = {"TABLE_NAME": "t", "BUCKET_NAME": "b", "CONTROL_QUEUE_URL": "c", "DATA_QUEUE_URL": "d"}


def test_the_function_reads_its_limits_from_its_environment() -> None:
    assert LoaderSettings.from_env(ENV).limits == Limits()
    limits = LoaderSettings.from_env({**ENV, "MAX_LINE_BYTES": "4096", "MAX_BUILD_ROWS": "7"}).limits
    assert (limits.max_line_bytes, limits.max_build_rows) == (4096, 7)
    with pytest.raises(SettingsError, match="MAX_DIRECTORY_PARTITIONS must be between 1 and"):
        LoaderSettings.from_env({**ENV, "MAX_DIRECTORY_PARTITIONS": "0"})
