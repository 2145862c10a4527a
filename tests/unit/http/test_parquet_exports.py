"""``format=parquet`` on the export route: asked of the tables function where one is deployed (the marker kept under
``_exports/``, the file looked for in the version's table folder), refused with a clear 503 where none is."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fencepost.core.versions.exports import Marker
from fencepost.errors import InvalidRequest, Unavailable
from fencepost.http.export_routes import Exports
from fencepost.model import DatasetRecord, VersionInfo


class Files:
    def __init__(self) -> None:
        self.objects: dict[str, float] = {}
        self.markers: dict[str, Marker] = {}

    def modified(self, key: str) -> float | None:
        return self.objects.get(key)

    def presigned(self, key: str, seconds: int) -> str:
        return f"https://example.test/{key}"

    def marker(self, key: str) -> Marker | None:
        return self.markers.get(key)

    def claim(self, key: str, state: str, *, replacing: str | None) -> bool:
        self.markers[key] = Marker(state, "e", 1.0)
        return True


def _exports(
    files: Files,
    asked: list[tuple[str, int, str]],
    *,
    parquet: bool,
    name: str = "geo",
    version_of: Callable[[str, int], VersionInfo] | None = None,
) -> Exports:
    record = DatasetRecord(name=name, live=3)
    return Exports(
        lambda asked_name: record if asked_name == name else None,
        lambda: files,
        lambda dataset, version, form: asked.append((dataset, version, form)),
        max_mmdb_ranges=10,
        clock=lambda: 2.0,
        parquet=parquet,
        version_of=version_of,
    )


def test_parquet_is_asked_once_then_linked_from_the_versions_table_folder() -> None:
    files, asked = Files(), list[tuple[str, int, str]]()
    exports = _exports(files, asked, parquet=True)
    first = exports.answer("geo", {"format": "parquet"})
    assert first.status_code == 202
    assert asked == [("geo", 3, "parquet")]
    assert set(files.markers) == {"_exports/geo/3.parquet.building"}
    files.objects["_tables/geo/version=3/geo-3.parquet"] = 5.0
    ready = exports.answer("geo", {"format": "parquet"})
    assert ready.status_code == 303
    assert ready.headers["Location"] == "https://example.test/_tables/geo/version=3/geo-3.parquet"


def test_parquet_where_no_tables_function_is_deployed_is_a_clear_503() -> None:
    files, asked = Files(), list[tuple[str, int, str]]()
    with pytest.raises(Unavailable, match=r"Parquet exports are not set up here \(TABLES_QUEUE_URL"):
        _exports(files, asked, parquet=False).answer("geo", {"format": "parquet"})
    assert (asked, files.markers) == ([], {})


@pytest.mark.parametrize("form", ["csv", "cidr", "mmdb", "parquet"])
def test_a_keyed_version_is_refused_in_every_format_and_nothing_is_asked(form: str) -> None:
    files, asked = Files(), list[tuple[str, int, str]]()
    keyed = lambda dataset, version: VersionInfo(dataset, version, ("asn", "name"), {}, keyed="asn")  # noqa: E731
    exports = _exports(files, asked, parquet=True, name="names", version_of=keyed)
    with pytest.raises(InvalidRequest, match=r"'names' is a keyed dataset: it has no ranges to export"):
        exports.answer("names", {"format": form})
    assert (asked, files.markers) == ([], {})
