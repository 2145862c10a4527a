"""Change events as a rule's target receives them: the schema every detail is checked against
(``docs/events.schema.json``), a rule on a bus with an SQS queue as its target (moto's server runs both), and the
events read off that queue."""

from __future__ import annotations

import functools
import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # (pinned in requirements/dev.txt, through schemathesis)

from tests.support import ROOT

SCHEMA_FILE = ROOT / "docs" / "events.schema.json"


@functools.cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA_FILE.read_text())
    return loaded


def check(event: dict[str, Any]) -> None:
    """``event`` (``detail-type``, ``source``, ``detail``) is what the schema describes (ValidationError if not)."""
    jsonschema.Draft202012Validator(schema()).validate(event)


@dataclass
class Listener:
    """A rule matching one ``source`` on the default bus, delivering to its own queue."""

    events: Any  # the EventBridge client
    sqs: Any
    source: str
    queue: str

    @classmethod
    def create(cls, events: Any, sqs: Any, source: str | None = None) -> Listener:
        source = source or f"fencepost-{uuid.uuid4().hex[:8]}"
        url = sqs.create_queue(QueueName=f"{source}-events")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        events.put_rule(Name=f"{source}-all", EventPattern=json.dumps({"source": [source]}))
        events.put_targets(Rule=f"{source}-all", Targets=[{"Id": "queue", "Arn": arn}])
        return cls(events, sqs, source, url)

    def received(self, wait: float = 0.0) -> list[dict[str, Any]]:
        """Every event on the queue now (each checked against the schema), oldest first; waits up to ``wait`` s for
        the first."""
        found: list[dict[str, Any]] = []
        deadline = time.monotonic() + wait
        while True:
            answer = self.sqs.receive_message(QueueUrl=self.queue, MaxNumberOfMessages=10, WaitTimeSeconds=0)
            messages = answer.get("Messages", [])
            for message in messages:
                event = json.loads(message["Body"])
                check(event)
                found.append(event)
                self.sqs.delete_message(QueueUrl=self.queue, ReceiptHandle=message["ReceiptHandle"])
            if messages:
                continue
            if found or time.monotonic() >= deadline:
                break
            time.sleep(0.1)
        return sorted(found, key=lambda event: event["time"])

    def kinds(self, wait: float = 0.0) -> list[tuple[str, str]]:
        """The ``detail-type`` and dataset of each event received."""
        return [(event["detail-type"], event["detail"]["dataset"]) for event in self.received(wait)]
