"""A local run's configuration: ports, names, the loader's tuning, and what the functions find in their
environment (``make run``'s defaults; tests and benchmarks take free ports)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from local.ports import free_port
from local.resources import VISIBILITY_TIMEOUT, Queues
from local.storage import DISK, MEMORY

ROOT = Path(__file__).resolve().parent.parent

__all__ = ["DISK", "MEMORY", "ROOT", "Environ", "StackConfig", "environment"]


@dataclass
class StackConfig:
    """Ports, names and the loader's tuning for a local run (defaults are those of ``make run``)."""

    dynamodb_port: int = 8000
    aws_port: int = 4566  # S3 and SQS
    http_port: int | None = 3000  # None: no HTTP front
    data_dir: Path | None = ROOT / "var"  # None: nothing kept (metrics to standard output, no logs)
    # Where DynamoDB Local keeps the table: "memory" (nothing kept: make run rebuilds it from the objects it mirrors)
    # or "disk" (<data_dir>/dynamodb, worked on as a copy in memory: local.storage), which needs a data dir.
    store: str = MEMORY
    table: str = "fencepost-ranges"
    bucket: str = "ranges"
    queue: str = "fencepost-loader"
    cache_ttl: float = 1.0
    loader_env: dict[str, str] = field(
        default_factory=lambda: {
            "SETTLE_SECONDS": "2",
            "CHUNK_ITEMS": "2000",
            "WRITE_THREADS": "8",
            "DELETE_GRACE_SECONDS": "60",
            "STALL_SECONDS": "300",
            "RETRY_BASE_SECONDS": "1",
            "DEADLINE_MARGIN_SECONDS": "5",
        }
    )
    loader_timeout: float = 900.0
    workers: int = 2  # loader invocations at once on the data queue (the event source's maximum concurrency)
    control_workers: int = 1  # and on the control queue, which never waits behind the data queue
    sweep_every: float = 60.0
    sources_every: float = 2.0  # seconds between rounds of the folders' sources (0: none; make fetch checks one)
    log_level: str = "ERROR"  # the terminal shows progress lines; JSON logs only for errors
    # The capacity emulator in front of DynamoDB Local (local.capacity): "off" (DynamoDB Local as it is: unlimited),
    # or a mode of capacity.modes ("on-demand-new", "warm=12000", "provisioned=10000,then-on-demand"),
    # every capacity figure multiplied by capacity_scale. It listens on dynamodb_port; DynamoDB Local moves behind.
    capacity: str = "off"
    capacity_scale: float = 1.0
    # The dataset a lookup without dataset= reads (DEFAULT_DATASET); None: the service's own default, "default".
    # make run names the sample it loads, so that a first lookup (the console's with nothing ticked) answers.
    default_dataset: str | None = None
    # Faults injected on purpose (local.faults): a FAULTS spec ("" or "off": none), and the seed of its decisions
    # (None: one is drawn at start and printed, so that the run can be repeated with it).
    faults: str = ""
    faults_seed: int | None = None
    # The data queue's visibility timeout: how long a chunk whose worker was killed waits to be delivered again.
    data_visibility: int = VISIBILITY_TIMEOUT
    # Keep the functions' EMF metric lines: in <data_dir>/metrics.log, never on the terminal; a stack without a data
    # dir writes them to standard output, as Lambda does (the benchmarks). Off: counted, never written.
    metrics: bool = True

    @classmethod
    def ephemeral(cls, **changes: Any) -> StackConfig:
        """Free ports, in memory: for tests and benchmarks."""
        values: dict[str, Any] = {"dynamodb_port": free_port(), "aws_port": free_port(), "http_port": free_port()}
        values["data_dir"] = None
        values["metrics"] = False
        values.update(changes)
        return cls(**values)

    def metrics_environment(self) -> dict[str, str]:
        """How the handlers write their metrics (read by ``fencepost.observability`` when a handler is imported)."""
        if not self.metrics:
            return {"POWERTOOLS_METRICS_DISABLED": "true", "METRICS_FILE": ""}
        sink = str(self.data_dir / "metrics.log") if self.data_dir is not None else ""
        return {"POWERTOOLS_METRICS_DISABLED": "false", "METRICS_FILE": sink}


class Environ:
    """``os.environ`` changed for the functions the stack runs in its process, and put back as it was."""

    def __init__(self) -> None:
        self.saved: dict[str, str | None] = {}

    def set(self, values: dict[str, str]) -> None:
        for name, value in values.items():
            self.saved.setdefault(name, os.environ.get(name))
            os.environ[name] = value

    def restore(self) -> None:
        for name, value in self.saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def environment(
    config: StackConfig, dynamodb: str, aws: str, queues: Queues, tables: str | None = None
) -> dict[str, str]:
    """What the functions find in their environment when ``make run`` runs them (the endpoints, fake
    credentials, the resources' names, and the local settings); ``tables``: the tables function's queue."""
    return {
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL_DYNAMODB": dynamodb,
        "AWS_ENDPOINT_URL_S3": aws,
        "AWS_ENDPOINT_URL_SQS": aws,
        "AWS_ENDPOINT_URL_SECRETS_MANAGER": aws,
        "AWS_ENDPOINT_URL_GLUE": aws,
        "AWS_ENDPOINT_URL_EVENTBRIDGE": aws,  # moto's EventBridge: the change events (docs/events.md)
        "AWS_ENDPOINT_URL_WAFV2": aws,  # folders' sinks: WAF IP sets and managed prefix lists (docs/sinks.md)
        "AWS_ENDPOINT_URL_EC2": aws,
        "TABLE_NAME": config.table,
        "BUCKET_NAME": config.bucket,
        "CONTROL_QUEUE_URL": queues.control.url,
        "DATA_QUEUE_URL": queues.data.url,
        "EXPORT_QUEUE_URL": queues.data.url,  # the lookup function asks the loader for exports there
        **({"TABLES_QUEUE_URL": tables} if tables else {}),  # each live version as Parquet, in the Glue catalog
        "CACHE_TTL_SECONDS": str(config.cache_ttl),
        "DYNAMODB_READ_TIMEOUT_SECONDS": "10",  # DynamoDB Local shares this machine's CPU with everything
        "POWERTOOLS_LOG_LEVEL": config.log_level,
        # Sources may be checked every few seconds and fetched over plain http here, from a publisher on this
        # machine (a local fixture server: loopback, which the deployed function refuses).
        "SOURCE_MIN_EVERY_SECONDS": "1",
        "SOURCE_HTTPS_ONLY": "false",
        "SOURCE_ALLOW_LOOPBACK": "true",
        "CHANGE_EVENTS": "true",  # on, as deployed: moto's default bus delivers them to the rules' queues
        **config.metrics_environment(),
        **config.loader_env,
        **({"DEFAULT_DATASET": config.default_dataset} if config.default_dataset else {}),
    }
