"""In-memory fakes of the loader's ports, with the contracts of the real adapters, for state-machine tests.

- ``kernel``: the simulated clock, the fault injector (kills the N-th port call), the item store, telemetry;
- ``datasets``: dataset records through a load's life (``fencepost.aws.dynamo.datasets``); ``serving``: what is served,
  the live pointers and the transitions that change them (``fencepost.aws.dynamo.serving``); ``tables``: builds,
  versions, the bulk writer;
- ``bucket``: the S3 bucket; ``queues``: the two SQS queues and Lambda's delivery; ``world``: all of it wired.
"""

from tests.fakes.bucket import FakeBucket, notification
from tests.fakes.datasets import FakeDatasets
from tests.fakes.kernel import Clock, FakeTelemetry, Faults, Store
from tests.fakes.queues import Envelope, FakeQueues
from tests.fakes.tables import FakeBuilds, FakeVersions, FakeWriter
from tests.fakes.world import DATASET, REPLACED_WHOLE, World, loader_settings

__all__ = [
    "DATASET",
    "REPLACED_WHOLE",
    "Clock",
    "Envelope",
    "FakeBucket",
    "FakeBuilds",
    "FakeDatasets",
    "FakeQueues",
    "FakeTelemetry",
    "FakeVersions",
    "FakeWriter",
    "Faults",
    "Store",
    "World",
    "loader_settings",
    "notification",
]
