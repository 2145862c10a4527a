"""A page of ``GET /datasets/{name}/diff?from=&to=`` sends the Queries of its changed stretches a few at a time and
stops sending once the response budget is spent: a client asking ``limit=1000`` of rows too large to fit costs the
Queries of what it gets, plus at most one batch, not a thousand."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from fencepost.core.space.addresses import FAMILIES, V4
from fencepost.core.storage.members import START, gzip_members
from fencepost.core.storage.objects import pieces_key
from fencepost.core.storage.piece_files import piece_lines
from fencepost.core.versions.diff_walk import Resume, Step
from fencepost.http.budget import ResponseBudget
from fencepost.http.version_diff_routes import VersionDiff
from fencepost.model import VersionInfo
from tests.support import family_ranges

IN_FLIGHT = 4
ROW = "x" * 10_000  # each change's data: ten of them fill a budget of 100 KB


class Files:
    def __init__(self, objects: dict[str, bytes]) -> None:
        self.objects = objects

    def read_from(self, key: str, offset: int) -> Callable[[int], bytes] | None:
        return io.BytesIO(self.objects[key][offset:]).read


class Counted(VersionDiff):
    """The route with each changed stretch's Query counted, answering a large row."""

    queries = 0
    lock = threading.Lock()

    def _line(self, info: VersionInfo, step: Step) -> str:
        with self.lock:
            Counted.queries += 1
        return f'{{"start":"{step.change.start}","data":"{ROW}"}}'


def _pieces(values: list[str]) -> bytes:
    rows = [[f"1.0.{n}.0", f"1.0.{n}.255", value] for n, value in enumerate(values)]
    ranges = family_ranges(rows)
    return b"".join(gzip_members(piece_lines(ranges, {family: ranges[family].pieces() for family in FAMILIES})))


def test_a_page_of_large_changes_sends_the_queries_of_what_fits_and_one_batch_more() -> None:
    old, new = (VersionInfo("geo", version, ("c",), {}) for version in (1, 2))
    files = Files({pieces_key("geo", 1): _pieces(["a"] * 200), pieces_key("geo", 2): _pieces(["b", "c"] * 100)})
    with ThreadPoolExecutor(IN_FLIGHT) as pool:
        route = Counted(None, None, lambda: files, pool, budget=100_000, scan=1000, in_flight=IN_FLIGHT)  # type: ignore[arg-type]
        budget = ResponseBudget(100_000)
        parts, following = route._page((old, new), Resume(V4, 0, START, START), 1000, budget, resumed=False)
    assert 5 <= len(parts) < 10
    assert following is not None
    assert len(parts) < Counted.queries <= len(parts) + IN_FLIGHT  # not the 200 changes the walk found
