"""``python -m bench.reverse``: reverse lookups and their value index (section 10 of ``make bench``).

1. Building the index: for each whole shared file (the IPv4 file's ``country``, the IPv6 file's ``asn``), the seconds
   to build one column's index and directory from the flattened pieces (``core.versions.value_index``), beside the
   seconds to flatten them, in the same run; the bytes the bucket keeps.
2. A page's cost: every value of the IPv4 file's ``country`` paged through ``GET /ranges?where=`` (``limit=1000``)
   and listed by ``GET /datasets/{name}/values/country``, on the lookup function's app with the version in memory
   (``MemoryStore``) and the index objects in a bucket stub that counts GETs and the bytes they return.
3. A load with and without the index through the capacity emulator, as section 9 runs it (``python -m local
   --capacity on-demand-new``): the time to READY, the write calls and the share throttled.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from bench.lookups import quiet_stdout
from bench.partitions import EmulatedLoad, add_arguments, emulated_load
from bench.reverse_report import Built, Pages, markdown
from bench.several import _NoListings
from bench.timing import median
from fencepost.core.space.addresses import FAMILIES
from fencepost.core.storage.objects import index_key, values_key
from fencepost.core.versions.exports import Marker
from fencepost.core.versions.value_index import build_index, directory_bytes
from fencepost.http.app import create_app
from fencepost.observability import LOOKUP_SERVICE, Observability
from fencepost.reading.lookup import Lookup
from fencepost.settings import LookupSettings, TableSettings
from tests.fakes.ranges import MemoryStore
from tests.support import V4_FILE, V6_FILE, LambdaContext, event, family_ranges, read_tsv

FILES = ((V4_FILE, ("country",), "country"), (V6_FILE, ("asn", "country", "description"), "asn"))
LIMIT = 1000
MODE = "on-demand-new"


@dataclass
class CountingBucket:
    """The index objects in memory, read as the lookup function reads the bucket; each call is one GET."""

    objects: dict[str, bytes]
    gets: int = 0
    bytes_read: int = 0
    per_get: list[int] = field(default_factory=list)

    def read_from(self, key: str, offset: int) -> Callable[[int], bytes] | None:
        self.gets += 1
        self.per_get.append(0)
        stream = io.BytesIO(self.objects[key][offset:])

        def read(size: int) -> bytes:
            data = stream.read(size)
            self.bytes_read += len(data)
            self.per_get[-1] += len(data)
            return data

        return read

    def modified(self, key: str) -> float | None:
        self.gets += 1
        return 0.0 if key in self.objects else None

    def presigned(self, key: str, seconds: int) -> str:  # noqa: ARG002 - exports are not measured here
        return f"memory://{key}"

    def marker(self, key: str) -> Marker | None:  # noqa: ARG002 - exports are not measured here
        return None

    def claim(self, key: str, state: str, *, replacing: str | None) -> bool:  # noqa: ARG002
        return False

    def object_if_any(self, key: str, limit: int) -> bytes | None:  # noqa: ARG002 - every object here is small
        self.gets += 1
        return self.objects.get(key)

    def lines_if_any(self, key: str) -> Iterator[bytes] | None:
        self.gets += 1
        body = self.objects[key]
        self.bytes_read += len(body)
        return iter(gzip.decompress(body).splitlines())


def build(path: Any, columns: tuple[str, ...], column: str, repeat: int = 3) -> tuple[Built, dict[str, bytes]]:
    rows = read_tsv(path)
    flatten, index = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        families = family_ranges(rows)
        pieces = {family: families[family].pieces() for family in FAMILIES}
        flatten.append(time.perf_counter() - started)
        started = time.perf_counter()
        members, directory = build_index(families, pieces, columns, column)
        listing = directory_bytes(directory)
        index.append(time.perf_counter() - started)
    body = b"".join(members)
    objects = {index_key("geo", 1, 0): body, values_key("geo", 1, 0): listing}
    built = Built(
        path.name,
        column,
        directory.lines,
        len(directory.values),
        median(flatten),
        median(index),
        len(body),
        len(listing),
    )
    return built, objects


def pages(objects: dict[str, bytes]) -> Pages:
    """Every value of the IPv4 file's country, paged through the app."""
    store = MemoryStore()
    store.publish("geo", 1, family_ranges(read_tsv(V4_FILE)), ["country"], indexed=("country",))
    bucket = CountingBucket(objects)
    settings = LookupSettings(table=TableSettings("bench"))
    obs = Observability(service=LOOKUP_SERVICE, tracing=False)
    api = create_app(settings, Lookup(store, settings.cache_ttl), _NoListings(), obs, files=lambda: bucket)
    context = LambdaContext()

    def get(path: str, **query: str) -> tuple[dict[str, Any], float]:
        request = event("lookup-get", queryStringParameters=query)
        request["rawPath"] = request["requestContext"]["http"]["path"] = path
        started = time.perf_counter()
        response = api.handle(request, context)
        seconds = time.perf_counter() - started
        assert response["statusCode"] == 200, response["body"][:300]
        return json.loads(response["body"]), seconds

    with quiet_stdout():
        listing, _ = get("/datasets/geo/values/country", limit="1000")
        values_times = [get("/datasets/geo/values/country", limit="100", sort="ipv4")[1] for _ in range(50)]
        page_times: list[float] = []
        pieces = 0
        gets_before, sizes_before = bucket.gets, len(bucket.per_get)
        for stats in listing["values"]:
            cursor = None
            while True:
                query = {"dataset": "geo", "where": f"country:{stats['value']}", "limit": str(LIMIT)}
                body, seconds = get("/ranges", **query, **({"cursor": cursor} if cursor else {}))
                page_times.append(seconds)
                pieces += len(body["ranges"])
                cursor = body["next"]
                if cursor is None:
                    break
    assert pieces == sum(stats["pieces"] for stats in listing["values"])
    count = len(page_times)
    sizes = bucket.per_get[sizes_before:]
    return Pages(
        len(listing["values"]),
        count,
        pieces,
        (bucket.gets - gets_before) / count,
        median([float(size) for size in sizes]),
        median(page_times) * 1e3,
        median(values_times) * 1e3,
    )


def loads(args: argparse.Namespace) -> tuple[EmulatedLoad, EmulatedLoad]:
    rows, scale = args.partition_rows, args.capacity_scale
    plain = emulated_load(V4_FILE, rows, MODE, scale, pacing=True, dataset="plain4")
    indexed = emulated_load(V4_FILE, rows, MODE, scale, pacing=True, dataset="index4", settings={"index": ["col3"]})
    return plain, indexed


def section(args: argparse.Namespace) -> str:
    built = [build(path, columns, column) for path, columns, column in FILES]
    paged = pages(built[0][1])
    plain, indexed = loads(args)
    return markdown([b for b, _ in built], paged, plain, indexed, args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.reverse", description=__doc__)
    add_arguments(parser)
    print(section(parser.parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
