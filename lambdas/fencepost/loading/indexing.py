"""Writing the files a version is read from later, before its header is written (so a version always has them): its
table file (``core.storage.table_files``: what enrichment joins) and its value indexes (``core.versions.value_index``):
for each column its folder names in ``"index"``, the index and its directory. They are deleted with the version."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.storage.objects import index_key, table_key, values_key
from fencepost.core.storage.table_files import table_lines
from fencepost.core.versions.value_index import build_index, directory_bytes
from fencepost.loading.ports import KeptFiles, Telemetry
from fencepost.loading.progress import Read
from fencepost.loading.recipe import Flat


class IndexFiles(KeptFiles, Protocol):
    def put_bytes(self, key: str, body: bytes) -> None: ...
    def put_lines(self, key: str, lines: Iterable[str]) -> None: ...


@dataclass(kw_only=True, frozen=True, slots=True)
class Indexer:
    files: IndexFiles
    telemetry: Telemetry

    def write(self, dataset: str, build: int, flat: Flat, read: Read, *, index: Sequence[str]) -> None:
        """The table file, and the index of each column of ``index`` (all of them columns of the read)."""
        families, pieces, columns = flat.families, flat.pieces, read.columns
        self.files.put_lines(table_key(dataset, build), table_lines(families, pieces, columns, sorted(read.aliases)))
        for ordinal, column in enumerate(index):
            began = time.perf_counter()
            members, directory = build_index(families, pieces, columns, column)
            body = b"".join(members)
            members.clear()
            self.files.put_bytes(index_key(dataset, build, ordinal), body)
            listing = directory_bytes(directory)
            self.files.put_bytes(values_key(dataset, build, ordinal), listing)
            seconds = time.perf_counter() - began
            self.telemetry.logger.info(
                "value index written",
                extra={
                    "dataset": dataset,
                    "build": build,
                    "column": column,
                    "values": len(directory.values),
                    "pieces": directory.lines,
                    "bytes": len(body) + len(listing),
                    "seconds": round(seconds, 2),
                },
            )
            self.telemetry.metrics.add_metric(name="IndexSeconds", unit=MetricUnit.Seconds, value=seconds)
