"""Writing a build's value indexes (``core.versions.value_index``): for each column its folder names in ``"index"``, the
index and its directory, in the bucket beside the build's report, before the version's header is written (so a
version that lists an indexed column always has its index). They are deleted with the version."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.storage.objects import index_key, values_key
from fencepost.core.versions.build import FamilyRanges, Pieces
from fencepost.core.versions.value_index import build_index, directory_bytes
from fencepost.loading.ports import KeptFiles, Telemetry


class IndexFiles(KeptFiles, Protocol):
    def put_bytes(self, key: str, body: bytes) -> None: ...


@dataclass(kw_only=True, frozen=True, slots=True)
class Indexer:
    files: IndexFiles
    telemetry: Telemetry

    def write(
        self,
        dataset: str,
        build: int,
        *,
        families: Mapping[int, FamilyRanges],
        pieces: Mapping[int, Pieces],
        columns: Sequence[str],
        index: Sequence[str],
    ) -> None:
        """The index of each column of ``index`` (all of them columns of ``columns``)."""
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
