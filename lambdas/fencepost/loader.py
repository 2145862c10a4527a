"""The write path, one message at a time.

1. A change in a folder (an S3 notification) counts a *request* on the dataset record and schedules a build
   message after a settle delay; when it arrives, only the latest request builds (a burst makes one build).
2. A build takes its number from the record's counter, lists the folder, and skips if the objects and ETags are
   those of the live version. Otherwise it reads every object, checks every row, flattens the overlaps, writes
   the version's directory, and sends its pieces, shuffled across partitions, as chunk messages.
3. Chunk messages are written in parallel (BatchWriteItem, retried with backoff until the invocation's deadline,
   then handed back). The build record counts written chunks once each; the last one finalizes the build.
4. Finalizing makes the version live in one conditional write that succeeds only if it is newer than the live
   one. The old live version stays as the rollback target; the one before it is deleted once no warm lookup can
   still read it (the lookup cache TTL plus 15 minutes after it stopped being live).

Delivery is at least once: every step is safe to repeat. Nothing is silently dropped: a chunk that keeps failing
fails its load with the reason on its last delivery and goes to the dead-letter queue, and a sweep fails loads
that stopped making progress.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import unquote_plus

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.bucket import Bucket, ObjectRef
from fencepost.core import chunks
from fencepost.core.addresses import FAMILIES
from fencepost.core.build import Collector, ProblemLog
from fencepost.core.folders import REPORTS_PREFIX, FolderError, dataset_of, report_key
from fencepost.core.formats import FileError, Problem, ReadOptions, read_ranges
from fencepost.core.keys import range_pk
from fencepost.errors import Unavailable
from fencepost.model import (
    ABANDONED,
    DELETING,
    FAILED,
    FINALIZING,
    LIVE,
    LOADING,
    PLANNING,
    READY,
    WRITING,
    BuildRecord,
    DatasetRecord,
    VersionInfo,
)
from fencepost.observability import Observability
from fencepost.queue import Queue
from fencepost.settings import LoaderSettings
from fencepost.store import RateLimiter, Store, Switch

PROGRESS_EVERY = 5.0  # seconds between progress updates (record and log) while reading
RECORD_PROBLEMS = 100  # problems kept in the dataset record; the report keeps up to 10,000 and counts the rest


class HandBack(Exception):
    """Leave the message on the queue, to be delivered again after ``delay`` seconds."""

    def __init__(self, reason: str, delay: float) -> None:
        super().__init__(reason)
        self.delay = delay


class LoadFailure(Exception):
    """The load cannot go on; ``earlier`` are the row problems found before, which often explain it."""

    def __init__(
        self, reason: str, *, object_key: str = "", line: int | None = None, earlier: Sequence[Problem] = ()
    ) -> None:
        super().__init__(reason)
        self.problem = Problem(object_key, line, reason)
        self.earlier = list(earlier)


@dataclass(slots=True)
class _Read:
    collector: Collector
    problems: ProblemLog
    columns: tuple[str, ...]
    rows: int


class Clock(Protocol):
    def __call__(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Delivery:
    """How a message arrived: its deadline (a ``monotonic()`` value) and how often it has been delivered."""

    deadline: float
    receive_count: int = 1


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a build holds millions of rows.

    Its full collections would walk every live tuple again and again (they slow planning several times over),
    and planning creates no reference cycles: reference counting frees everything it drops.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def _same_objects(objects: list[ObjectRef], live: list[dict[str, Any]]) -> bool:
    return {(o.key, o.etag) for o in objects} == {(o.get("key"), o.get("etag")) for o in live}


class Loader:
    def __init__(
        self,
        settings: LoaderSettings,
        store: Store,
        bucket: Bucket,
        queue: Queue,
        obs: Observability,
        *,
        clock: Clock = time.time,
        monotonic: Clock = time.monotonic,
    ) -> None:
        self.settings = settings
        self.store = store
        self.bucket = bucket
        self.queue = queue
        self.log = obs.logger
        self.metrics = obs.metrics
        self.clock = clock
        self.monotonic = monotonic

    # -- dispatch ----------------------------------------------------------------------------------------------

    def handle(self, body: str, delivery: Delivery) -> None:
        """One queue message. Raises ``HandBack`` when it must be delivered again."""
        try:
            message = json.loads(body)
        except json.JSONDecodeError:
            self.log.warning("a message that is not JSON was dropped", extra={"body": body[:200]})
            return
        if not isinstance(message, dict):
            self.log.warning("a message that is not a JSON object was dropped")
            return
        if message.get("Event") == "s3:TestEvent":
            self.log.info("the bucket's test notification arrived: the queue is wired")
            return
        try:
            if "Records" in message:
                self.on_notifications(message["Records"])
            elif message.get("kind") == "build":
                self.on_build(str(message["dataset"]), int(message["request"]), delivery)
            elif message.get("kind") == "chunk":
                self.on_chunk(message, delivery)
            elif message.get("kind") == "delete":
                self.on_delete(message, delivery)
            else:
                self.log.warning("a message of unknown kind was dropped", extra={"kind": message.get("kind")})
        except Unavailable as error:
            if message.get("kind") == "chunk" and delivery.receive_count >= self.settings.max_receives:
                self._fail_build(str(message["dataset"]), int(message["build"]), f"{error} (last delivery)")
            raise HandBack(str(error), self._backoff(delivery)) from error

    def _backoff(self, delivery: Delivery) -> float:
        return float(min(300, self.settings.retry_base * 2 ** (delivery.receive_count - 1)))

    # -- 1. changes in a folder --------------------------------------------------------------------------------

    def on_notifications(self, records: Iterable[dict[str, Any]]) -> None:
        touched: dict[str, None] = {}
        for record in records:
            if record.get("eventSource") != "aws:s3":
                continue
            key = unquote_plus(record["s3"]["object"]["key"])
            try:
                dataset = dataset_of(key)
            except FolderError as error:
                self._reject(key, str(error))
                continue
            if dataset is not None:
                touched[dataset] = None
        for dataset in touched:
            request = self.store.note_request(dataset, self.clock())
            self.queue.send({"kind": "build", "dataset": dataset, "request": request}, self.settings.settle_seconds)
            self.log.info("folder changed; build scheduled", extra={"dataset": dataset, "request": request})

    def _reject(self, key: str, reason: str) -> None:
        self.log.warning("object ignored", extra={"object": key, "reason": reason})
        name = hashlib.sha256(key.encode()).hexdigest()[:16]
        self.bucket.put_json(
            f"{REPORTS_PREFIX}_rejected/{name}.json", {"object": key, "reason": reason, "at": _iso(self.clock())}
        )
        self.metrics.add_metric(name="ObjectsRejected", unit=MetricUnit.Count, value=1)

    # -- 2. builds ---------------------------------------------------------------------------------------------

    def on_build(self, dataset: str, request: int, delivery: Delivery) -> None:
        record = self.store.start_build(dataset, request, self.clock())
        if record is None:
            self.log.info("build skipped: a newer change or a repeated delivery", extra={"dataset": dataset})
            return
        build = record.builds
        try:
            with gc_paused():
                self._plan(dataset, build, record, delivery)
        except LoadFailure as failure:
            self._fail_load(dataset, build, [failure.problem, *failure.earlier])
        except Unavailable as error:
            self._abandon(dataset, build)  # whatever this attempt wrote is deleted; a retry takes a new number
            if delivery.receive_count >= self.settings.max_receives:
                reason = f"{error} (after {delivery.receive_count} attempts)"
                self._fail_load(dataset, build, [Problem("", None, reason)])
                return
            self.store.release_request(dataset, request)
            raise

    def _plan(self, dataset: str, build: int, record: DatasetRecord, delivery: Delivery) -> None:
        started = self.clock()
        try:
            settings = self.bucket.settings(dataset)
        except (FolderError, FileError) as error:
            raise LoadFailure(str(error)) from None
        objects = self.bucket.list_data(dataset)
        if not objects:
            self._retire(dataset, build, record)
            return
        if record.live is not None and not record.retired and _same_objects(objects, record.objects):
            self.store.end_load(dataset, build, READY, self.clock(), phase="unchanged")
            self.log.info("build skipped: the objects are those of the live version", extra={"dataset": dataset})
            return
        object_list = [obj.as_dict() for obj in objects]
        try:
            read = self._read(dataset, build, objects, settings.read_options, delivery)
        except LoadFailure as failure:  # the report names the objects this build read
            problems = [failure.problem, *failure.earlier]
            self._fail_load(dataset, build, problems, objects=object_list, started=started)
            return
        if read.problems.count > settings.max_invalid_rows:
            allowed = settings.max_invalid_rows
            summary = Problem("", None, f"{read.problems.count} invalid rows; the folder's settings allow {allowed}")
            problems = [summary, *read.problems.kept]
            total = read.problems.count + 1
            self._fail_load(dataset, build, problems, total, rows=read.rows, objects=object_list, started=started)
            return
        if not len(read.collector):
            problems = [Problem("", None, "the objects hold no ranges")]
            self._fail_load(dataset, build, problems, objects=object_list, started=started)
            return
        self._publish(
            dataset, build, object_list, read, merge=settings.merge_neighbours, started=started, delivery=delivery
        )

    def _read(
        self, dataset: str, build: int, objects: list[ObjectRef], options: ReadOptions, delivery: Delivery
    ) -> _Read:
        """Every object's rows into one collector, in key order; the columns must agree."""
        read = _Read(Collector(), ProblemLog(), (), 0)
        first = ""
        for obj in objects:
            lines = self.bucket.lines(obj.key)
            lines = self._watch(dataset, build, obj.key, lines, rows_before=read.rows, delivery=delivery)
            try:
                summary = read_ranges(obj.key, lines, options, read.collector, read.problems)
            except FileError as error:
                raise LoadFailure(
                    error.reason, object_key=obj.key, line=error.line, earlier=read.problems.kept
                ) from None
            read.rows += summary.rows
            if not first:
                read.columns, first = summary.columns, obj.key
            elif summary.columns != read.columns:
                raise LoadFailure(
                    f"{obj.key} has the metadata columns {list(summary.columns)} but {first} has "
                    f"{list(read.columns)}: all objects of a dataset must have the same columns",
                    object_key=obj.key,
                    earlier=read.problems.kept,
                )
        self.metrics.add_metric(name="RowsRead", unit=MetricUnit.Count, value=read.rows)
        return read

    def _publish(
        self,
        dataset: str,
        build: int,
        object_list: list[dict[str, Any]],
        read: _Read,
        *,
        merge: bool,
        started: float,
        delivery: Delivery,
    ) -> None:
        """Flatten, write the version's directory, and send the pieces as shuffled chunks.

        Chunks are sent as they are encoded (the build is PLANNING meanwhile: writers may already write them),
        and the build turns WRITING once their number is known; whichever comes last finalizes it.
        """
        families = read.collector.families
        pieces = {family: families[family].pieces(merge_neighbours=merge) for family in FAMILIES}
        book = chunks.Book(families, pieces)
        directories = {family: families[family].directory(pieces[family]) for family in FAMILIES}
        info = VersionInfo(dataset, build, read.columns, directories)
        self.store.put_version(
            info, ranges=read.rows, items=len(book), objects=object_list, created_at=_iso(self.clock())
        )
        key = report_key(dataset, build)
        self.store.put_build(
            BuildRecord(dataset, build, PLANNING, 0, set(), 0, read.rows, len(book), object_list, key, started)
        )
        self._write_report(
            dataset,
            build,
            "WRITING",
            objects=object_list,
            rows=read.rows,
            items=len(book),
            problems=read.problems,
            started=started,
        )
        kept = [p._asdict() for p in read.problems.kept[:RECORD_PROBLEMS]]
        self.store.update_load(
            dataset, build, self.clock(), phase="writing", rows_read=read.rows, problems=kept, report=key
        )
        inline: list[tuple[int, Any]] = []

        def messages() -> Iterator[dict[str, Any]]:
            runs = chunks.cut(book.shuffled(seed=build), self.settings.chunk_items, book.encode)
            for number, (run, payload) in enumerate(runs, 1):
                if len(payload) > chunks.MAX_PAYLOAD_CHARS:
                    inline.append((number, run))  # too large for a message: written from here
                else:
                    yield {"kind": "chunk", "dataset": dataset, "build": build, "chunk": number, "payload": payload}

        sent = self.queue.send_stream(messages())
        for number, run in inline:
            self._write_chunk(dataset, build, number, book.items(run, dataset, build), delivery)
        record = self.store.start_writing(dataset, build, sent + len(inline))
        self.log.info(
            "build planned",
            extra={
                "dataset": dataset,
                "build": build,
                "rows": read.rows,
                "items": len(book),
                "chunks": sent + len(inline),
                "seconds": round(self.clock() - started, 1),
            },
        )
        if record is not None and record.complete:
            self.finalize(dataset, build)

    def _watch(
        self, dataset: str, build: int, key: str, lines: Iterator[bytes], *, rows_before: int, delivery: Delivery
    ) -> Iterator[bytes]:
        """Pass lines through, reporting progress every few seconds and stopping before the deadline."""
        next_report = self.monotonic() + PROGRESS_EVERY
        for count, line in enumerate(lines, 1):
            if count % 4096 == 0 and self.monotonic() >= next_report:
                if self.monotonic() >= delivery.deadline:
                    raise LoadFailure(
                        "reading the objects took longer than one invocation allows: give the loader more memory "
                        "(and so more CPU) or split the folder's data",
                        object_key=key,
                        line=count,
                    )
                self.store.update_load(dataset, build, self.clock(), rows_read=rows_before + count)
                self.log.info("reading", extra={"dataset": dataset, "object": key, "lines": count})
                next_report = self.monotonic() + PROGRESS_EVERY
            yield line

    def _retire(self, dataset: str, build: int, record: DatasetRecord) -> None:
        before = self.store.retire(dataset, build, self.clock())
        if before is None:
            return
        for version in (before.live, before.previous):
            if version is not None:
                self._schedule_delete(dataset, version, self.clock() + self.settings.delete_grace)
        self.log.info("dataset retired: its folder is empty", extra={"dataset": dataset, "live": record.live})

    # -- 3. chunks ---------------------------------------------------------------------------------------------

    def on_chunk(self, message: dict[str, Any], delivery: Delivery) -> None:
        dataset, build, number = str(message["dataset"]), int(message["build"]), int(message["chunk"])
        record = self.store.get_build(dataset, build)
        if record is None or record.state not in (PLANNING, WRITING, FINALIZING):
            self.log.info("chunk dropped: its build is over", extra={"dataset": dataset, "build": build})
            return
        if number not in record.done:
            items = chunks.decode(str(message["payload"]), dataset, build)
            record = self._write_chunk(dataset, build, number, items, delivery) or record
        if record.complete:
            self.finalize(dataset, build)

    def _write_chunk(
        self, dataset: str, build: int, number: int, items: list[dict[str, Any]], delivery: Delivery
    ) -> BuildRecord | None:
        started = self.monotonic()
        limiter = RateLimiter(self.settings.write_rate) if self.settings.write_rate else None
        outcome = self.store.write_batches(
            [{"PutRequest": {"Item": item}} for item in items],
            deadline=delivery.deadline,
            threads=self.settings.write_threads,
            limiter=limiter,
            clock=self.monotonic,
        )
        self.metrics.add_metric(name="ItemsWritten", unit=MetricUnit.Count, value=outcome.written)
        self.metrics.add_metric(name="Throttles", unit=MetricUnit.Count, value=outcome.throttled)
        self.metrics.add_metric(name="Retries", unit=MetricUnit.Count, value=outcome.retries)
        if outcome.unfinished:
            reason = (
                f"chunk {number} of build {build}: {len(outcome.unfinished)} of {len(items)} items were not written "
                f"before the invocation's deadline ({outcome.throttled} throttled calls)"
            )
            if delivery.receive_count >= self.settings.max_receives:
                self._fail_build(dataset, build, f"{reason}, after {delivery.receive_count} deliveries")
            raise HandBack(reason, self._backoff(delivery))
        updated = self.store.complete_chunk(dataset, build, number, len(items))
        if updated is not None:
            self.store.update_load(dataset, build, self.clock(), items_written=updated.written)
            self.log.info(
                "chunk written",
                extra={
                    "dataset": dataset,
                    "build": build,
                    "chunk": number,
                    "of": updated.chunks,
                    "items": len(items),
                    "throttled": outcome.throttled,
                    "seconds": round(self.monotonic() - started, 2),
                },
            )
        return updated

    # -- 4. going live -----------------------------------------------------------------------------------------

    def finalize(self, dataset: str, build: int) -> None:
        record = self.store.get_build(dataset, build)
        if record is None or record.state not in (WRITING, FINALIZING) or not record.complete:
            return
        self.store.set_build_state(dataset, build, FINALIZING, expect=[WRITING, FINALIZING])
        now = self.clock()
        switched = self.store.switch_live(
            dataset, build, ranges=record.ranges, objects=record.objects, loaded_at=_iso(now), now=now
        )
        if switched.result is Switch.STALE:
            self._fail_build(dataset, build, "superseded: a newer version went live, or the folder was emptied")
            return
        self.store.end_load(dataset, build, READY, now, phase="done", items_written=record.written)
        before = switched.before
        if switched.result is Switch.SWITCHED and before is not None and before.previous is not None:
            stopped = before.live_since if before.live_since is not None else now
            self._schedule_delete(dataset, before.previous, stopped + self.settings.delete_grace)
        self._update_report(record, READY)
        # Last: until the build is LIVE, a chunk delivered again finalizes it again (each step above is repeatable).
        self.store.set_build_state(dataset, build, LIVE)
        self.metrics.add_metric(name="LoadsSucceeded", unit=MetricUnit.Count, value=1)
        if record.started is not None:
            self.metrics.add_metric(name="LoadSeconds", unit=MetricUnit.Seconds, value=round(now - record.started, 3))
        self.log.info("version is live", extra={"dataset": dataset, "version": build, "items": record.written})
        if self.store.billing_mode() == "PROVISIONED":
            self.log.warning(
                "the table is still PROVISIONED: once loads are done, switch it to on-demand with a plain "
                "`cdk deploy` (see the README), or pay for the provisioned capacity every hour",
                extra={"dataset": dataset},
            )

    # -- failures ----------------------------------------------------------------------------------------------

    def _fail_load(
        self,
        dataset: str,
        build: int,
        problems: list[Problem],
        total: int | None = None,
        *,
        rows: int = 0,
        objects: list[dict[str, Any]] | None = None,
        started: float | None = None,
    ) -> None:
        log = ProblemLog()
        for problem in problems:
            log.add(problem)
        log.count = max(log.count, total or 0)
        self._write_report(
            dataset, build, FAILED, objects=objects or [], rows=rows, items=0, problems=log, started=started
        )
        self._failed(dataset, build, problems)

    def _failed(self, dataset: str, build: int, problems: list[Problem]) -> None:
        """Record that the load of ``build`` failed (if it is still the latest), count it and say why."""
        self.store.end_load(
            dataset,
            build,
            FAILED,
            self.clock(),
            phase="failed",
            problems=[p._asdict() for p in problems[:RECORD_PROBLEMS]],
            report=report_key(dataset, build),
        )
        self.metrics.add_metric(name="LoadsFailed", unit=MetricUnit.Count, value=1)
        self.log.warning("load failed", extra={"dataset": dataset, "build": build, "reason": problems[0].reason})

    def _abandon(self, dataset: str, build: int) -> None:
        self.store.set_build_state(dataset, build, ABANDONED, expect=[PLANNING, WRITING, FINALIZING])
        self._schedule_delete(dataset, build, self.clock())

    def _fail_build(self, dataset: str, build: int, reason: str) -> None:
        """Abandon a build that cannot finish: its load fails, its items are deleted, the live version stays."""
        if not self.store.set_build_state(dataset, build, ABANDONED, expect=[PLANNING, WRITING, FINALIZING]):
            return
        record = self.store.get_build(dataset, build)
        if record is not None:
            self._update_report(record, FAILED, reason)
        self._failed(dataset, build, [Problem("", None, reason)])
        self._schedule_delete(dataset, build, self.clock())

    def sweep(self) -> int:
        """Fail every load that has shown no progress for ``stall_seconds``, and collect what no version needs.

        Returns how many loads were failed.
        """
        now, failed = self.clock(), 0
        for record in self.store.list_datasets():
            if record.status == LOADING and record.heartbeat is not None:
                idle = now - record.heartbeat
                if idle >= self.settings.stall_seconds:
                    self._fail_stalled(record, f"no progress for {int(idle)} seconds: the load was stopped", now)
                    failed += 1
            self._collect(record, now)
        return failed

    def _fail_stalled(self, record: DatasetRecord, reason: str, now: float) -> None:
        build = record.load.version
        if build is None or self.store.get_build(record.name, build) is None:
            problems = [Problem("", None, reason)._asdict()]
            self.store.end_load(record.name, build, FAILED, now, phase="failed", problems=problems)
        else:
            self._fail_build(record.name, build, reason)

    def _collect(self, record: DatasetRecord, now: float) -> None:
        """Delete builds that no one serves: abandoned ones at once, once-live ones after the grace period.

        A crash can leave such a build behind (for instance between a switch and the deletion it schedules);
        builds still being written are left to finish, or to the stall check.
        """
        kept = {record.live, record.previous}
        for build in self.store.builds(record.name):
            if build.build in kept:
                continue
            if build.state == ABANDONED:
                self._schedule_delete(record.name, build.build, now)
            elif build.state == LIVE:
                self._schedule_delete(record.name, build.build, now + self.settings.delete_grace)

    # -- reports -----------------------------------------------------------------------------------------------

    def _write_report(
        self,
        dataset: str,
        build: int,
        status: str,
        *,
        objects: list[dict[str, Any]],
        rows: int,
        items: int,
        problems: ProblemLog,
        started: float | None,
    ) -> None:
        self.bucket.put_json(
            report_key(dataset, build),
            {
                "dataset": dataset,
                "version": build,
                "status": status,
                "objects": objects,
                "ranges": rows,
                "items": items,
                "problems_total": problems.count,
                "problems_listed": len(problems.kept),
                "problems": [p._asdict() for p in problems.kept],
                "started_at": _iso(started) if started else None,
                "updated_at": _iso(self.clock()),
            },
        )

    def _update_report(self, record: BuildRecord, status: str, reason: str | None = None) -> None:
        key = record.report or report_key(record.dataset, record.build)
        document = self.bucket.get_json(key) or {"dataset": record.dataset, "version": record.build}
        document.update(status=status, updated_at=_iso(self.clock()), items_written=record.written)
        if reason:
            document["reason"] = reason
        self.bucket.put_json(key, document)

    # -- old versions ------------------------------------------------------------------------------------------

    def _schedule_delete(self, dataset: str, version: int, not_before: float) -> None:
        message = {"kind": "delete", "dataset": dataset, "version": version, "not_before": not_before, "cursor": 0}
        self.queue.send(message, not_before - self.clock())
        self.store.set_build_state(dataset, version, DELETING)  # (a version without a build record has none)

    def on_delete(self, message: dict[str, Any], delivery: Delivery) -> None:
        dataset, version = str(message["dataset"]), int(message["version"])
        wait = float(message["not_before"]) - self.clock()
        if wait > 0:
            self.queue.send(message, wait)  # SQS delays at most 15 minutes: wait in several hops
            return
        record = self.store.get_dataset(dataset, consistent=True)
        if record is not None and version in (record.live, record.previous):
            self.log.info("version not deleted: it is served again", extra={"dataset": dataset, "version": version})
            return
        info = self.store.get_version(dataset, version)
        partitions = [(f, p) for f in FAMILIES for p in info.directories[f].partitions] if info else []
        cursor = int(message.get("cursor", 0))
        for index in range(cursor, len(partitions)):
            family, partition = partitions[index]
            for keys in self.store.partition_keys(range_pk(dataset, version, family, partition)):
                if not self._delete_keys(keys, delivery):
                    self.queue.send({**message, "cursor": index}, 1)
                    return
        if not self._delete_keys(self.store.version_keys(dataset, version), delivery):
            self.queue.send({**message, "cursor": len(partitions)}, 1)
            return
        self.store.delete_build(dataset, version)
        self.log.info("old version deleted", extra={"dataset": dataset, "version": version})

    def _delete_keys(self, keys: list[dict[str, Any]], delivery: Delivery) -> bool:
        if self.monotonic() >= delivery.deadline:
            return False
        outcome = self.store.write_batches(
            [{"DeleteRequest": {"Key": key}} for key in keys],
            deadline=delivery.deadline,
            threads=self.settings.write_threads,
            clock=self.monotonic,
        )
        return not outcome.unfinished
