"""What listens on the ports clients use: DynamoDB Local and moto's server themselves, or fronts before them.

A front (``local.proxy``) takes the port clients use only when something must sit on the wire: the capacity emulator
(``CAPACITY``), DynamoDB's or S3's injected faults (``FAULTS``); the service behind it moves to a free port. Without
them, clients talk to DynamoDB Local and moto directly, on the ports they always used.
"""

from __future__ import annotations

from pathlib import Path

from capacity.modes import parse_mode
from local.capacity import CapacityFront
from local.config import StackConfig
from local.dynamodb import DynamoDBLocal, LocalStackError, MotoServer
from local.faults import Faults
from local.ports import free_port, port_in_use
from local.proxy import Proxy


def check_ports(config: StackConfig) -> None:
    """Every port clients use is free, or the start stops before anything runs, saying which is busy."""
    for port, what in ((config.dynamodb_port, "DynamoDB Local"), (config.aws_port, "the local S3/SQS")):
        if port_in_use(port):
            raise LocalStackError(f"port {port} (for {what}) is busy: stop what uses it or choose another port")
    if config.http_port is not None and port_in_use(config.http_port):
        raise LocalStackError(f"port {config.http_port} (for the HTTP API) is busy: choose another port")


def start_dynamodb(
    config: StackConfig, db_path: Path | None, log: Path | None, faults: Faults | None
) -> tuple[DynamoDBLocal, CapacityFront | None, Proxy | None]:
    """DynamoDB Local, the capacity emulator if asked, and the front on ``dynamodb_port`` if any (the emulator's,
    the faults' hook first; or one for the faults alone)."""
    mode = parse_mode(config.capacity)  # a bad mode stops the start before anything runs
    hooks = [faults.dynamodb_hook()] if faults is not None and faults.spec.dynamodb else []
    behind = config.dynamodb_port if mode.unlimited and not hooks else free_port()
    dynamodb = DynamoDBLocal(behind, db_path, log).start()
    if not mode.unlimited:
        capacity = CapacityFront(
            config.dynamodb_port, dynamodb.endpoint, mode, scale=config.capacity_scale, hooks=hooks
        )
        capacity.record = config.data_dir / "capacity.jsonl" if config.data_dir else None
        return dynamodb, capacity.start(), capacity.proxy
    if hooks:
        return dynamodb, None, Proxy(config.dynamodb_port, dynamodb.endpoint, hooks, name="dynamodb-front").start()
    return dynamodb, None, None


def launch_moto(config: StackConfig, faults: Faults | None) -> MotoServer:
    """moto's S3/SQS server launched (not yet waited on: ``front_moto``): on ``aws_port``, or behind the S3 faults'
    front when they are asked."""
    log = config.data_dir / "moto.log" if config.data_dir else None
    return MotoServer(config.aws_port if faults is None or not faults.spec.s3 else free_port(), log).launch()


def front_moto(moto: MotoServer, config: StackConfig, faults: Faults | None) -> tuple[MotoServer, Proxy | None]:
    """moto's server once it answers, and the S3 faults' front on ``aws_port`` if asked (SQS passes through it
    untouched)."""
    moto.wait_ready()
    if faults is None or not faults.spec.s3:
        return moto, None
    return moto, Proxy(config.aws_port, moto.endpoint, [faults.s3_hook()], name="s3-front").start()


def start_services(
    config: StackConfig, db_path: Path | None, log: Path | None, faults: Faults | None
) -> tuple[tuple[DynamoDBLocal, CapacityFront | None, Proxy | None], tuple[MotoServer, Proxy | None]]:
    """DynamoDB Local (``start_dynamodb``) and moto's server started side by side: the stack starts in the time of
    the slower, DynamoDB Local's JVM. If either fails, the other is stopped again."""
    moto = launch_moto(config, faults)
    try:
        dynamodb = start_dynamodb(config, db_path, log, faults)
    except BaseException:
        moto.stop()
        raise
    try:
        return dynamodb, front_moto(moto, config, faults)
    except BaseException:
        moto.stop()
        if dynamodb[2] is not None:
            dynamodb[2].stop()
        dynamodb[0].stop()
        raise
