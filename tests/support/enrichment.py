"""Enrichment run in process over a small dataset built from a file of ranges (no service): shared by the
enrichment tests that read and write files."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from fencepost.enrichment.engine import Enricher
from fencepost.enrichment.inputs import Reader
from fencepost.enrichment.job import BATCH_ROWS, Job, Summary
from fencepost.enrichment.outputs import Writer
from fencepost.enrichment.resolving import Resolver
from fencepost.enrichment.shape import Shape, parse_fields
from fencepost.enrichment.sources import FileSource
from fencepost.reading.answers import Mode

RANGES = (
    '1.1.1.0\t1.1.1.255\t13335\tUS\tCloudflare, "Inc."\n'
    "10.0.0.0\t10.255.255.255\t64512\tXX\tprivate ten\n"
    "192.168.0.0\t192.168.255.255\t64513\tXX\tprivate lan\n"
    "2001:db8::\t2001:db8::ffff\t64496\tZZ\tdoc\n"
)
TEN, LAN = ["64512", "XX", "private ten"], ["64513", "XX", "private lan"]


def ranges_source(folder: Path, text: str) -> FileSource:
    path = folder / "geo.tsv"
    path.write_text(text)
    return FileSource("geo", [path])


def enrich(source: FileSource, form: str, text: str, out: str = "csv", **reading: Any) -> tuple[str, Summary]:
    raw = reading.pop("raw", False)
    batch_rows = reading.pop("batch_rows", BATCH_ROWS)
    reader = Reader(form, **reading)
    shape = Shape(("geo",), Mode.ALL, parse_fields(None), {"geo": ("col3", "col4", "col5")})
    writer = Writer(out, reader, shape.columns(), raw=raw)
    enricher = Enricher(shape, [Resolver("geo", source)], errors_shown=out == "jsonl")
    job = Job(reader, writer, enricher, batch_rows=batch_rows)
    written: list[bytes] = []
    summary = job.run(io.BytesIO(text.encode()), "input", written.append)
    return b"".join(written).decode(), summary
