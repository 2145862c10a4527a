"""The same addresses enrichment joins, the other ways (``bench.enrichment``'s comparison, section 14): ``POST
/lookup`` through the lookup app in process (100 a call, over the loader's items in memory: no HTTP, no DynamoDB),
``maxminddb``'s C reader on the version's MaxMind DB export, and DuckDB's ``ip BETWEEN start AND end`` join on its
CSV export."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from bench.timing import timed


def other_ways(ranges: Path, texts: list[str], folder: Path) -> dict[str, Any]:
    """Seconds for ``texts`` through POST /lookup (in process), maxminddb's C reader, and DuckDB's BETWEEN join."""
    import maxminddb

    from bench.several import _NoListings
    from fencepost.core.space.addresses import FAMILIES, V4, V6
    from fencepost.core.versions.exports import csv_lines
    from fencepost.core.versions.mmdb_export import mmdb_bytes
    from fencepost.http.app import create_app
    from fencepost.loading.local_files import build_files
    from fencepost.observability import Observability
    from fencepost.reading.lookup import Lookup
    from fencepost.settings import LookupSettings, TableSettings
    from tests.fakes.ranges import MemoryStore
    from tests.support import LambdaContext, event

    count = len(texts)
    built = build_files([ranges], "geo", 1)
    families, columns = built.flat.families, built.read.columns
    store = MemoryStore()
    store.publish("geo", 1, families, columns)
    settings = LookupSettings(table=TableSettings("t"), cache_ttl=3600.0)
    app = create_app(settings, Lookup(store, 3600.0), _NoListings(), Observability(service="bench", tracing=False))
    started = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        stdout, sys.stdout = sys.stdout, quiet  # the app's metric lines
        try:
            for at in range(0, count, 100):
                request = event("lookup-post", body=json.dumps({"ips": texts[at : at + 100], "dataset": "geo"}))
                app.handle(request, LambdaContext())
        finally:
            sys.stdout = stdout
    out: dict[str, Any] = {"addresses": count, "post_seconds": time.perf_counter() - started}
    pieces = [
        (family, start, end, families[family].values[source])
        for family in FAMILIES
        for start, end, source in built.flat.pieces[family]
    ]
    mmdb = folder / "geo.mmdb"
    mmdb.write_bytes(
        mmdb_bytes("geo", columns, pieces, has_ipv6=any(p[0] == V6 for p in pieces), build_epoch=int(time.time()))
    )
    reader = maxminddb.open_database(str(mmdb), maxminddb.MODE_MMAP_EXT)
    out["mmdb_seconds"] = min(timed(lambda: [reader.get(text) for text in texts]) for _ in range(3))  # warm
    out["mmdb_extension"] = type(reader).__module__
    csv_path = folder / "geo.csv"
    csv_path.write_text("".join(csv_lines(columns, [p for p in pieces if p[0] == V4], raw=True)))
    out["duckdb_seconds"] = _duckdb(csv_path, texts)
    return out


def _duckdb(csv_path: Path, texts: list[str]) -> float:
    import duckdb

    connection = duckdb.connect()
    connection.execute(
        "CREATE TABLE ranges AS SELECT *, "
        "(split_part(start, '.', 1)::UBIGINT << 24) + (split_part(start, '.', 2)::UBIGINT << 16) + "
        "(split_part(start, '.', 3)::UBIGINT << 8) + split_part(start, '.', 4)::UBIGINT AS s, "
        "(split_part(\"end\", '.', 1)::UBIGINT << 24) + (split_part(\"end\", '.', 2)::UBIGINT << 16) + "
        "(split_part(\"end\", '.', 3)::UBIGINT << 8) + split_part(\"end\", '.', 4)::UBIGINT AS e "
        f"FROM read_csv('{csv_path}', all_varchar = true)"
    )
    values = [int.from_bytes(bytes(int(p) for p in text.split(".")), "big") for text in texts]
    connection.execute("CREATE TABLE addresses AS SELECT unnest(?::UBIGINT[]) AS ip", [values])
    started = time.perf_counter()
    connection.execute("SELECT count(*) FROM addresses a LEFT JOIN ranges r ON a.ip BETWEEN r.s AND r.e").fetchall()
    return time.perf_counter() - started
