"""The value-index directories a lookup container keeps are bounded by their estimated size, not by a count: a
client cycling through many version/column pairs does not make each request read a directory of megabytes again,
and a budget smaller than what it cycles through evicts the least recently used."""

from __future__ import annotations

import gzip
import tracemalloc
from collections.abc import Callable, Iterator

from fencepost.core.space.addresses import FAMILIES
from fencepost.core.storage.objects import index_key, values_key
from fencepost.core.versions.value_index import Directory, build_index, directory_bytes
from fencepost.model import VersionInfo
from fencepost.reading.caches import index_bytes
from fencepost.reading.indexes import ValueIndexes
from tests.support import V4_FILE, family_ranges, read_tsv

PAIRS = 9  # versions of a dataset, each with its indexed column: one more than the count once kept


class Files:
    def __init__(self, objects: dict[str, bytes]) -> None:
        self.objects, self.directories_read = objects, 0

    def lines_if_any(self, key: str) -> Iterator[bytes] | None:
        self.directories_read += 1
        return iter(gzip.decompress(self.objects[key]).splitlines(keepends=True))

    def read_from(self, key: str, offset: int) -> Callable[[int], bytes] | None:
        raise AssertionError("not read here")


def _indexed(versions: int) -> tuple[Files, list[VersionInfo]]:
    families = family_ranges(read_tsv(V4_FILE, 2_000))
    pieces = {family: families[family].pieces() for family in FAMILIES}
    _, directory = build_index(families, pieces, ("country",), "country")
    objects = {values_key("geo", v, 0): directory_bytes(directory) for v in range(1, versions + 1)}
    objects |= {index_key("geo", v, 0): b"" for v in range(1, versions + 1)}
    infos = [VersionInfo("geo", v, ("country",), {}, indexed=("country",)) for v in range(1, versions + 1)]
    return Files(objects), infos


def test_cycling_through_nine_version_and_column_pairs_reads_each_directory_once() -> None:
    files, infos = _indexed(PAIRS)
    indexes = ValueIndexes(lambda: files, max_bytes=64 << 20)
    for _ in range(3):
        for info in infos:
            assert indexes.directory(info, "country").column == "country"
    assert files.directories_read == PAIRS


def test_a_budget_smaller_than_the_directories_cycled_through_evicts_the_least_recently_used() -> None:
    files, infos = _indexed(PAIRS)
    one = index_bytes(indexes_directory(files, infos[0]))
    indexes = ValueIndexes(lambda: files, max_bytes=3 * one)
    files.directories_read = 0
    for info in infos * 2:
        indexes.directory(info, "country")
    assert files.directories_read == 2 * PAIRS  # three kept at a time: cycling nine reads each every time
    for _ in range(3):
        indexes.directory(infos[-1], "country")
    assert files.directories_read == 2 * PAIRS  # the most recent stays


def test_the_estimate_is_not_below_what_a_directory_takes() -> None:
    files, _infos = _indexed(1)
    raw = files.objects[values_key("geo", 1, 0)]
    tracemalloc.start()
    directory = Directory.parse(iter(gzip.decompress(raw).splitlines(keepends=True)))
    taken, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert taken <= index_bytes(directory) <= 2 * taken


def indexes_directory(files: Files, info: VersionInfo) -> Directory:
    return ValueIndexes(lambda: files, max_bytes=1 << 30).directory(info, "country")
