"""Reading a build's objects: every row checked and collected, in key order, with progress reported every few
seconds, within the loader's limits (lowered by the folder's settings, if they say so), and a clear failure (not
a timeout) when reading would outlast the invocation."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.core.folders.joins import JoinError, JoinSpec, apply_join, read_table, tables_of
from fencepost.core.folders.limits import LimitError, Limits
from fencepost.core.formats.base import FileError, FileSummary, ReadOptions, text_lines
from fencepost.core.formats.choice import read_ranges, reads_whole
from fencepost.core.formats.lines import opens_document
from fencepost.core.formats.mmdb import MmdbSummary
from fencepost.core.storage.items import (
    COLUMN_NAMES_BYTES,
    OBJECT_LIST_BYTES,
    ItemTooLarge,
    column_names_bytes,
    object_list_bytes,
)
from fencepost.loading.mmdb_objects import read_mmdb_object
from fencepost.loading.ports import Clock, LoadProgress, Telemetry
from fencepost.loading.progress import LoadFailure, Read, Watch
from fencepost.model import ObjectRef, Problem

__all__ = ["LoadFailure", "Read", "Reader"]

CHECK_EVERY_LINES = 4096  # the deadline is checked at least this often,
CHECK_EVERY_BYTES = 1 << 20  # and at least this often, however long the lines


class Lines(Protocol):
    def lines(self, key: str) -> Iterator[bytes]: ...


@dataclass(kw_only=True, slots=True)
class Reader:
    files: Lines
    datasets: LoadProgress
    telemetry: Telemetry
    clock: Clock
    monotonic: Clock
    limits: Limits = field(default_factory=Limits)  # the function's

    def read(
        self,
        dataset: str,
        build: int,
        objects: list[ObjectRef],
        options: ReadOptions,
        deadline: float,
        *,
        join: JoinSpec | None = None,
        max_unjoined: int | None = None,
    ) -> Read:
        """Every range object's rows into one collector, in key order, the columns agreeing; then, with ``join``,
        the rows completed from the folder's lookup table (``core.folders.joins``): rows whose key the table lacks are a
        warning, or a failure when they are more than ``max_unjoined``. Raises ``LoadFailure``."""
        try:
            read = Read(self.limits.lowered_for(options.limits))
        except LimitError as error:
            raise LoadFailure(str(error), object_key=options.limits.source) from None
        check_listable(objects)
        first = ""
        tables = tables_of([obj.key for obj in objects], join)
        for obj in (obj for obj in objects if obj.key not in tables):
            summary: FileSummary | MmdbSummary
            try:
                # core.formats.choice: a MaxMind DB is read whole (loading.mmdb_objects), every other object by lines
                if reads_whole(obj.key):
                    watch = self._watch_of(dataset, build, obj.key, deadline)
                    summary = read_mmdb_object(self.files, read, options, watch, self.telemetry)
                else:
                    lines = self._watch(
                        dataset, build, obj.key, self.files.lines(obj.key), read=read, deadline=deadline, documents=True
                    )
                    documents = dataclasses.replace(
                        options, max_document_bytes=read.limits.max_document_bytes, reader_limits=read.limits
                    )
                    summary = read_ranges(obj.key, lines, documents, read.collector, read.problems)
                    if summary.stated is not None:  # the data's own date (core.versions.data_dates)
                        read.enddates[obj.key] = summary.stated
                    if summary.published is not None:
                        read.published[obj.key] = summary.published
            except FileError as error:
                raise LoadFailure(
                    error.reason, object_key=obj.key, line=error.line, earlier=read.problems.kept
                ) from None
            read.rows += summary.rows
            if not first:
                read.columns, first = summary.columns, obj.key
                check_storable(read.columns, obj.key, read.limits)
            elif summary.columns != read.columns:
                raise LoadFailure(
                    f"{obj.key} has the metadata columns {list(summary.columns)} but {first} has "
                    f"{list(read.columns)}: all objects of a dataset must have the same columns",
                    object_key=obj.key,
                    earlier=read.problems.kept,
                )
        if join is not None:
            self._join(dataset, build, join, read=read, deadline=deadline, max_unjoined=max_unjoined)
        self.telemetry.metrics.add_metric(name="RowsRead", unit=MetricUnit.Count, value=read.rows)
        return read

    def _join(
        self, dataset: str, build: int, join: JoinSpec, *, read: Read, deadline: float, max_unjoined: int | None
    ) -> None:
        key = join.object  # the table's whole key (``core.folders.joins.folder_join``)
        lines = self._watch(dataset, build, key, self.files.lines(key), read=read, deadline=deadline)
        try:
            table = read_table(text_lines(lines), join, key)
            joined = apply_join(read.collector, read.columns, join, table)
        except FileError as error:
            raise LoadFailure(error.reason, object_key=key, line=error.line, earlier=read.problems.kept) from None
        except (JoinError, ItemTooLarge) as error:
            raise LoadFailure(str(error), object_key=key, earlier=read.problems.kept) from None
        read.columns = joined.columns
        check_storable(read.columns, key, read.limits)
        miss = joined.miss(join, key)
        if miss is None:
            return
        if max_unjoined is not None and joined.unjoined > max_unjoined:
            allows = f"; max_unjoined_rows allows {max_unjoined:,}"
            raise LoadFailure(miss + allows, object_key=key, earlier=read.problems.kept)
        read.problems.warn(Problem(key, None, miss))
        self.telemetry.metrics.add_metric(name="UnjoinedRows", unit=MetricUnit.Count, value=joined.unjoined)

    def watched(self, dataset: str, build: int, key: str, *, read: Read, deadline: float) -> Iterator[bytes]:
        """The object's lines within the build's limits, progress reported, stopping before the deadline (what a
        keyed build reads: ``loading.keyed_building``). Raises ``FileError``."""
        return self._watch(dataset, build, key, self.files.lines(key), read=read, deadline=deadline)

    def _watch_of(self, dataset: str, build: int, key: str, deadline: float) -> Watch:
        return Watch(
            datasets=self.datasets,
            telemetry=self.telemetry,
            clock=self.clock,
            monotonic=self.monotonic,
            dataset=dataset,
            build=build,
            key=key,
            deadline=deadline,
        )

    def _watch(
        self,
        dataset: str,
        build: int,
        key: str,
        lines: Iterator[bytes],
        *,
        read: Read,
        deadline: float,
        documents: bool = False,
    ) -> Iterator[bytes]:
        """Pass lines through within the limits, reporting progress and stopping before the deadline (checked by
        lines and by bytes, so that no line escapes it). With ``documents``, an object that opens a JSON object may
        hold lines as long as a document (``Limits.line_ceiling``: a minified document is one line). Raises
        ``FileError``."""
        limits = read.limits
        max_line = limits.max_line_bytes
        document = None if documents else False  # whether the object opens a JSON object (None: not known yet)
        bytes_room = min(limits.max_object_bytes, limits.max_build_bytes - read.bytes)
        lines_room = limits.max_build_rows - read.lines
        watch = self._watch_of(dataset, build, key, deadline)
        count = taken = unchecked = 0
        for count, line in enumerate(lines, 1):
            size = len(line)
            taken += size
            if document is None and (document := opens_document(line)) is not None:
                max_line = limits.line_ceiling(document)
            if size > max_line:
                raise FileError(count, limits.line_too_long_in(bool(document)))
            if taken > bytes_room:
                too_large = taken > limits.max_object_bytes
                raise FileError(count, limits.object_too_large() if too_large else limits.build_too_large())
            if count > lines_room:
                raise FileError(count, limits.too_many_rows())
            unchecked += size
            if unchecked >= CHECK_EVERY_BYTES or not count % CHECK_EVERY_LINES:
                unchecked = 0
                watch.check(count, read.lines + count, lines=count)
            yield line
        read.lines += count
        read.bytes += taken


def check_listable(objects: list[ObjectRef]) -> None:
    """A version lists its objects in its records: the list must fit them."""
    size = object_list_bytes(objects)
    if size > OBJECT_LIST_BYTES:
        fitting = OBJECT_LIST_BYTES * len(objects) // size
        raise LoadFailure(
            f"the folder has {len(objects):,} objects, whose list takes {size:,} bytes; a version lists its objects "
            f"in one DynamoDB item, in at most {OBJECT_LIST_BYTES:,} bytes (about {fitting:,} objects with keys "
            "like these): merge objects, or split the dataset into several folders"
        )


def check_storable(columns: tuple[str, ...], key: str, limits: Limits) -> None:
    """A version stores its column names in its header item: they must fit it, and be no more than the limit."""
    if len(columns) > limits.max_columns:
        raise LoadFailure(limits.too_many_columns(), object_key=key)
    size = column_names_bytes(columns)
    if size > COLUMN_NAMES_BYTES:
        raise LoadFailure(
            f"the {len(columns):,} column names take {size:,} bytes; a version stores them in one DynamoDB item, "
            f"in at most {COLUMN_NAMES_BYTES:,} bytes: use fewer or shorter column names",
            object_key=key,
        )
