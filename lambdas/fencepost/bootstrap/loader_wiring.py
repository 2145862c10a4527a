"""The loader function wired: its settings, telemetry, the clients of its table (records, and the chunks' bulk
writes), queues and bucket, the loading service, and the handler: messages from its two queues (control and data),
and the scheduled sweep."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from fencepost.aws.dynamo import Tables, make_client
from fencepost.aws.dynamo.client import Table
from fencepost.aws.dynamo.writer import BulkWriter
from fencepost.aws.events import change_events, for_telemetry
from fencepost.aws.s3 import Bucket, make_s3_client
from fencepost.aws.sqs import Queues, TableRequests, make_sqs_client
from fencepost.bootstrap.sink_wiring import sink_pusher
from fencepost.loading.delivery import Delivery, HandBack
from fencepost.loading.dispatch import Step
from fencepost.loading.messages import Command, EnrichPart, JoinJob, Message, PlanJob, PushSinks, dump
from fencepost.loading.pushing import SinkPusher, SinkTrigger
from fencepost.loading.service import LoadingService
from fencepost.observability import LOADER_SERVICE, Observability
from fencepost.settings import LoaderSettings


class OnFirstUse:
    """A client created when first used: most loader invocations write chunks and never touch S3."""

    def __init__(self, create: Callable[[], Any]) -> None:
        self._create = create
        self._client: Any = None
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._create()
        return getattr(self._client, name)


@dataclass(frozen=True)
class LoaderFunction:
    settings: LoaderSettings
    obs: Observability
    tables: Tables
    bulk: Table  # the chunks' writes
    queues: Queues[Command]
    bucket: Bucket  # its client made on first use
    service: LoadingService
    sinks: SinkPusher | None = None  # the step that pushes live versions to the folders' sinks

    def handle(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        if event.get("source") == "aws.events" or event.get("kind") == "sweep":
            return {"stalled_loads_failed": self.service.sweep()}
        remaining = context.get_remaining_time_in_millis() / 1000
        deadline = time.monotonic() + remaining - self.settings.deadline_margin

        def record_handler(record: SQSRecord) -> None:
            delivery = Delivery(deadline, int(record.attributes.approximate_receive_count or 1))
            try:
                self.service.handle(record.body, delivery)
            except HandBack as hand_back:
                extra = {"reason": str(hand_back), "retry_in": hand_back.delay}
                self.obs.logger.warning("message handed back", extra=extra)
                self.queues.retry_in(record.event_source_arn, record.receipt_handle, hand_back.delay)
                raise

        # A processor per invocation: it holds the batch's outcome (and the local stack runs invocations in threads).
        processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
        response = process_partial_response(
            event=event, record_handler=record_handler, processor=processor, context=context
        )
        return dict(response)

    @functools.cached_property
    def handler(self) -> Any:
        return self.obs.wrap(self.handle)


def loader_function(env: Mapping[str, str] | None = None) -> LoaderFunction:
    settings = LoaderSettings.from_env(env)
    obs = Observability(service=LOADER_SERVICE, tracing=settings.tracing)
    # Records (builds, datasets, versions) are single items: a throttled update is retried by the client, not by
    # handing a whole chunk back. Bulk writes pace and retry by themselves, so their client does not retry again.
    client = make_client(pool=8, retries=6, read_timeout=10)
    bulk_client = make_client(pool=settings.write_threads + 4, retries=1, read_timeout=10, validate=False)
    tables = Tables.connect(client, settings.table.table_name)
    bulk = Table(bulk_client, settings.table.table_name)
    sqs = make_sqs_client()
    queues = Queues[Command](sqs, control_url=settings.control_queue_url, data_url=settings.data_queue_url, encode=dump)
    tables_queue = settings.tables_queue
    tables_requests = None if tables_queue is None else TableRequests(lambda: sqs, tables_queue)
    s3: Any = OnFirstUse(make_s3_client)
    bucket = Bucket(s3, settings.bucket, settings.limits)
    writer = BulkWriter(bulk, threads=settings.write_threads, rate=settings.write_rate, pacing=settings.write_pacing)
    count, warn = for_telemetry(obs)
    events = change_events(settings.events, settings.events_source, settings.events_seconds, count=count, warn=warn)
    pusher = sink_pusher(settings, tables, bucket, obs, events)
    service = LoadingService(
        settings,
        datasets=tables.datasets,
        history=tables.datasets.history,
        builds=tables.builds,
        versions=tables.versions,
        writer=writer,
        bucket=bucket,
        outbox=queues,
        telemetry=obs,
        billing_mode=tables.table.billing_mode,
        tables=tables_requests,
        events=events,
        sinks=SinkTrigger(bucket, queues),
        more_steps={
            **_on_first_job(lambda: _job_steps(tables, bucket, s3=s3, queues=queues, obs=obs, settings=settings)),
            PushSinks: pusher.on_push,
        },
    )
    return LoaderFunction(settings, obs, tables, bulk, queues, bucket, service, pusher)


def _job_steps(
    tables: Tables, bucket: Bucket, *, s3: Any, queues: Queues[Command], obs: Observability, settings: LoaderSettings
) -> Mapping[type[Message], Step]:
    from fencepost.bootstrap.enrich_wiring import job_steps  # numpy and the engine: imported by a job's first step

    return job_steps(tables, bucket, s3=s3, outbox=queues, telemetry=obs, settings=settings)


def _on_first_job(make: Callable[[], Mapping[type[Message], Step]]) -> dict[type[Message], Step]:
    """Steps for enrichment jobs' messages, made when the first arrives (most invocations never see one)."""
    made = functools.cache(make)

    def step(kind: type[Message]) -> Step:
        return lambda message, delivery: made()[kind](message, delivery)  # noqa: PLW0108 - made on first use

    return {kind: step(kind) for kind in (PlanJob, EnrichPart, JoinJob)}
