"""The tables function wired: its settings, telemetry, the clients of its table, bucket and Glue catalog, the
publisher (``tables.registering``) and the handler: messages from its queue, each a version to write as Parquet and
register."""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from fencepost.aws.dynamo import Tables, make_client
from fencepost.aws.glue_catalog import GlueCatalog, make_glue_client
from fencepost.aws.s3 import Bucket, make_s3_client
from fencepost.aws.table_objects import TableObjects
from fencepost.observability import TABLES_SERVICE, Observability
from fencepost.settings import TablesSettings
from fencepost.tables.registering import MessageError, TablesPublisher


@dataclass(frozen=True)
class TablesFunction:
    settings: TablesSettings
    obs: Observability
    publisher: TablesPublisher

    def handle(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        def record_handler(record: SQSRecord) -> None:
            try:
                self.publisher.on_message(record.body)
            except MessageError as error:  # never valid: delivering it again would change nothing
                self.obs.logger.warning(f"a tables message was dropped: {error}", extra={"body": record.body[:200]})

        processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
        response = process_partial_response(
            event=event, record_handler=record_handler, processor=processor, context=context
        )
        return dict(response)

    @functools.cached_property
    def handler(self) -> Any:
        return self.obs.wrap(self.handle)


def tables_function(env: Mapping[str, str] | None = None, *, scratch: Path | None = None) -> TablesFunction:
    """``scratch``: where files are written before they are uploaded (default: the system's temporary folder,
    ``/tmp`` on Lambda)."""
    settings = TablesSettings.from_env(env)
    obs = Observability(service=TABLES_SERVICE, tracing=settings.tracing)
    tables = Tables.connect(make_client(pool=4, retries=6, read_timeout=10), settings.table.table_name)
    bucket = Bucket(make_s3_client(), settings.bucket)
    publisher = TablesPublisher(
        datasets=tables.datasets,
        versions=tables.versions,
        objects=TableObjects(bucket),
        catalog=GlueCatalog(make_glue_client(), settings.glue_database),
        log=obs.logger,
        bucket=settings.bucket,
        scratch=scratch or Path(tempfile.gettempdir()),
    )
    return TablesFunction(settings, obs, publisher)
