"""Lookup latency on the loaded tables, the same random addresses for all three, calls interleaved:

- floor: a bare low-level ``query`` of the exact key the project's lookup asks for;
- reference: the design's published handler (resource API ``table.query``) on the reference table;
- handler: the project's lookup handler, invoked with API Gateway HTTP API v2 events.
"""

from __future__ import annotations

import contextlib
import copy
import ipaddress
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from boto3.dynamodb.conditions import Key
from botocore.config import Config

from fencepost.aws.dynamo import Tables
from fencepost.core.space.addresses import V4, format_address
from fencepost.core.storage.keys import range_pk
from fencepost.observability import LOOKUP_SERVICE
from fencepost.reading.lookup import Lookup
from local.dynamodb import local_client, local_resource
from local.stack import LocalStack
from local.worker import LambdaContext
from tests.support import EVENTS


@dataclass
class Latencies:
    name: str
    samples: list[float] = field(default_factory=list)  # seconds


def reference_handler(endpoint: str, table_name: str) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    """The design's lookup handler, re-created: the resource API, the /8 as partition key, ``SK <= ip``."""
    table = local_resource(endpoint).Table(table_name)

    def handler(event: dict[str, Any], _context: Any) -> dict[str, Any]:
        ip = event["queryStringParameters"]["ip"]
        number = int(ipaddress.ip_address(ip))
        response = table.query(
            KeyConditionExpression=Key("PK").eq(str(number >> 24)) & Key("SK").lte(number),
            ScanIndexForward=False,
            Limit=1,
        )
        items: list[Any] = response["Items"]
        if items and number <= items[0]["end"]:
            return {"statusCode": 200, "body": json.dumps({"ip": ip, "data": items[0]["data"]})}
        return {"statusCode": 404, "body": json.dumps({"ip": ip, "message": "not found"})}

    return handler


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Send file descriptor 1 to /dev/null: the handler still writes its metrics and logs, as in Lambda."""
    saved = os.dup(1)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
        try:
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


def run(
    stack: LocalStack, dataset: str, reference_table: str, addresses: list[int], warmup: int = 300
) -> dict[str, Any]:
    assert stack.dynamodb is not None
    assert stack.lookup is not None
    endpoint = stack.dynamodb.endpoint
    client = local_client(endpoint, config=Config())  # boto3's default configuration: the floor
    info = Lookup(Tables.connect(client, stack.config.table), ttl=3600).live(dataset)
    probes = []
    for address in addresses:
        probe = info.directories[V4].probe(address)
        assert probe is not None
        probes.append((range_pk(dataset, info.version, V4, probe.partition), str(probe.bound)))
    template = json.loads((EVENTS / "lookup-get.json").read_text())
    events = []
    for address in addresses:
        event = copy.deepcopy(template)
        event["queryStringParameters"] = {"ip": format_address(V4, address), "dataset": dataset}
        events.append(event)
    reference = reference_handler(endpoint, reference_table)
    handler = stack.lookup.handler
    context = LambdaContext(LOOKUP_SERVICE, 10)

    def floor(index: int) -> None:
        pk, bound = probes[index]
        client.query(
            TableName=stack.config.table,
            KeyConditionExpression="PK = :p AND SK <= :s",
            ExpressionAttributeValues={":p": {"S": pk}, ":s": {"N": bound}},
            ScanIndexForward=False,
            Limit=1,
        )

    calls: dict[str, Callable[[int], Any]] = {
        "floor": floor,
        "reference": lambda index: reference(events[index], context),
        "handler": lambda index: handler(events[index], context),
    }
    results = {name: Latencies(name) for name in calls}
    with quiet_stdout():
        for index in range(min(warmup, len(addresses))):
            for call in calls.values():
                call(index)
        names = list(calls)
        for index in range(len(addresses)):
            for name in names[index % 3 :] + names[: index % 3]:  # rotate who goes first
                started = time.perf_counter()
                calls[name](index)
                results[name].samples.append(time.perf_counter() - started)
    return {"latencies": results, "rcu_per_lookup": _read_units(client, stack.config.table, probes[:200])}


def _read_units(client: Any, table: str, probes: list[tuple[str, str]]) -> float:
    """The read units DynamoDB reports for the lookup's Query, on average over ``probes``."""
    consumed = []
    for pk, bound in probes:
        response = client.query(
            TableName=table,
            KeyConditionExpression="PK = :p AND SK <= :s",
            ExpressionAttributeValues={":p": {"S": pk}, ":s": {"N": bound}},
            ScanIndexForward=False,
            Limit=1,
            ReturnConsumedCapacity="TOTAL",
        )
        consumed.append(response["ConsumedCapacity"]["CapacityUnits"])
    return float(sum(consumed) / len(consumed))
