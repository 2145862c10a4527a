"""From a queue message to the step that handles it, and the hand-back policy.

- A body that does not parse is logged and dropped (it never will parse; retrying it would only fill the
  dead-letter queue).
- A dependency that fails (DynamoDB, S3, SQS) hands the message back, to be delivered again after a backoff that
  doubles with each delivery; a chunk that fails on its last delivery fails its load first.
- A step may hand its message back itself (``HandBack``), for instance a chunk not written by the deadline.
- Any other error is not expected (a bug, or a request DynamoDB refuses as invalid): delivering the message again
  would meet it again. A chunk that meets one fails its build, with the error as the reason (a build message does
  the same in ``building``); other messages are logged with the stack and delivered again, until their queue's
  dead-letter queue takes them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fencepost.errors import DependencyUnavailable
from fencepost.loading.building import Builder
from fencepost.loading.changes import Changes
from fencepost.loading.cleanup import Deletions
from fencepost.loading.delivery import Delivery, HandBack, backoff
from fencepost.loading.exporting import Exporter
from fencepost.loading.failing import Failures
from fencepost.loading.messages import (
    BuildRequested,
    DeleteVersion,
    ExportVersion,
    Message,
    ObjectsChanged,
    QueueWired,
    Unparsable,
    WriteChunk,
    parse,
)
from fencepost.loading.ports import Telemetry
from fencepost.loading.writing import ChunkWriter

Step = Callable[[Any, Delivery], None]


class Dispatcher:
    def __init__(
        self,
        *,
        changes: Changes,
        builder: Builder,
        writer: ChunkWriter,
        deletions: Deletions,
        exporter: Exporter,
        failures: Failures,
        telemetry: Telemetry,
        max_receives: int,
        retry_base: float,
        more: Mapping[type[Message], Step] | None = None,
    ) -> None:
        self.failures = failures
        self.telemetry = telemetry
        self.max_receives = max_receives
        self.retry_base = retry_base
        self.steps: dict[type[Message], Step] = {
            QueueWired: self._wired,
            ObjectsChanged: lambda message, _: changes.on_changed(message),
            BuildRequested: builder.on_build,
            WriteChunk: writer.on_chunk,
            DeleteVersion: deletions.on_delete,
            ExportVersion: exporter.on_export,
            **(more or {}),  # enrichment jobs' steps (``enrichment.job_steps``), when the function runs them
        }

    def handle(self, body: str, delivery: Delivery) -> None:
        """One queue message. Raises ``HandBack`` when it must be delivered again."""
        try:
            message = parse(body)
        except Unparsable as error:
            self.telemetry.logger.warning(
                "a message that cannot be read was dropped", extra={"reason": str(error), "body": body[:200]}
            )
            return
        step = self.steps.get(type(message))
        if step is None:
            self.telemetry.logger.warning("a message no step here takes was dropped", extra={"body": body[:200]})
            return
        try:
            step(message, delivery)
        except DependencyUnavailable as error:
            if isinstance(message, WriteChunk) and delivery.receive_count >= self.max_receives:
                reason = f"{error} (last delivery)"
                self.failures.fail_build(message.dataset, message.build, reason)
            raise HandBack(str(error), backoff(delivery, self.retry_base)) from error
        except HandBack:
            raise
        except Exception as error:
            if not isinstance(message, WriteChunk):
                log = self.telemetry.logger
                log.exception("a message met an unexpected error", extra={"kind": type(message).__name__})
                raise
            self.failures.fail_unexpected(message.dataset, message.build, error)

    def _wired(self, _message: QueueWired, _delivery: Delivery) -> None:
        self.telemetry.logger.info("the bucket's test notification arrived: the queue is wired")
