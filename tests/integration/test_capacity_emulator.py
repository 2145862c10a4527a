"""The capacity emulator (``local.capacity``) in front of DynamoDB Local: clients see what DynamoDB would answer
(throttles in its error format with ``ThrottlingReasons``, unprocessed items, consumed capacity), a hot key range
throttles while the rest of the table does not, a throttled GSI throttles the table's writes, a provisioned table
switched to on-demand keeps its partitions, the last second is written down and said at stop, the real loader loads
through it without losing an item, and the emulator and the virtual-time simulation of the same model agree on the
same request trace."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.config import Config

from capacity.modes import parse_mode
from capacity.partitions import Keyspace
from capacity.placement import Position, position
from capacity.simulation import Simulation
from capacity.table import Second, TableModel
from fencepost.bootstrap.loader_wiring import loader_function
from fencepost.bootstrap.lookup_wiring import lookup_function
from local.capacity import CapacityFront
from local.dynamodb import LOCAL_ACCOUNT, DynamoDBLocal, create_table, local_client
from local.ports import free_port
from tests.support import V4_FILE, read_tsv
from tests.support.lookups import assert_complete, tsv_bytes
from tests.support.stacks import Stack

NO_RETRIES = Config(retries={"total_max_attempts": 1, "mode": "standard"})


class Recorder:
    def __init__(self) -> None:
        self.seconds: list[tuple[str, Second]] = []
        self.lines: list[str] = []


@pytest.fixture
def front(dynamodb_local: DynamoDBLocal, request: pytest.FixtureRequest) -> Iterator[tuple[CapacityFront, Recorder]]:
    mode, scale = getattr(request, "param", ("on-demand-new", 0.02))
    recorder = Recorder()
    capacity = CapacityFront(free_port(), dynamodb_local.endpoint, parse_mode(mode), scale=scale)
    capacity.say = recorder.lines.append
    tables = capacity.operations.tables
    logged = tables.on_second

    def on_second(table: str, second: Second) -> None:
        recorder.seconds.append((table, second))
        logged(table, second)

    tables.on_second = on_second
    capacity.start()
    yield capacity, recorder
    capacity.stop()


def _new_table(client: Any, **extra: Any) -> str:
    name = f"cap{time.time_ns() % 10**12}"
    if extra:
        client.create_table(TableName=name, **extra)
        client.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 0.2, "MaxAttempts": 50})
    else:
        create_table(client, name)
    return name


def _keys_apart(partitions: int, count: int) -> list[str]:
    """Partition key values each on a partition of its own, for a table of ``partitions``."""
    space, n = Keyspace(partitions), 0
    found: dict[int, str] = {}
    while len(found) < count:
        found.setdefault(space.index_of(space.find(position({"S": f"k{n}"}))), f"k{n}")
        n += 1
    return list(found.values())


def _puts(key: str, count: int, start: int = 0) -> list[dict[str, Any]]:
    return [{"PutRequest": {"Item": {"PK": {"S": key}, "SK": {"N": str(start + n)}}}} for n in range(count)]


def _next_second() -> None:
    time.sleep(1.02 - time.time() % 1)


def test_a_throttle_is_answered_in_dynamodb_s_error_format_and_a_batch_s_excess_comes_back_unprocessed(
    front: tuple[CapacityFront, Recorder],
) -> None:
    capacity, _ = front
    client = local_client(capacity.endpoint, config=NO_RETRIES)
    table = _new_table(client)  # through the front: emulated as a new on-demand table at 2% (20 units a partition)
    # Both batches in one second of the emulator's clock, however long the machine takes to send them
    instant = time.time() // 1 + 1.01
    capacity.operations.tables.clock = lambda: instant
    answer = client.batch_write_item(RequestItems={table: _puts("hot", 25)}, ReturnConsumedCapacity="TOTAL")
    assert len(answer["UnprocessedItems"][table]) == 5
    assert answer["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 20.0}]
    with pytest.raises(client.exceptions.ProvisionedThroughputExceededException) as raised:
        client.batch_write_item(RequestItems={table: _puts("hot", 5, 100)})
    arn = f"arn:aws:dynamodb:us-east-1:000000000000:table/{table}"
    assert raised.value.response["ThrottlingReasons"] == [
        {"reason": "TableWriteKeyRangeThroughputExceeded", "resource": arn}
    ]


@pytest.mark.parametrize("front", [("on-demand-new", 0.0005)], indirect=True)
def test_the_aws_cli_sees_the_throttle_too(front: tuple[CapacityFront, Recorder]) -> None:
    capacity, _ = front  # half a write unit a partition a second: every write is refused
    table = _new_table(local_client(capacity.endpoint, config=NO_RETRIES))
    env = {**os.environ, "AWS_MAX_ATTEMPTS": "1", "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"}
    command = [sys.executable, "-m", "awscli", "dynamodb", "put-item", "--endpoint-url", capacity.endpoint]
    command += ["--region", LOCAL_ACCOUNT["region_name"], "--table-name", table]
    command += ["--item", '{"PK":{"S":"hot"},"SK":{"N":"7"}}']
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert done.returncode != 0
    assert "ProvisionedThroughputExceededException" in done.stderr


def test_a_hot_key_range_throttles_while_the_rest_of_the_table_does_not(front: tuple[CapacityFront, Recorder]) -> None:
    capacity, _ = front
    client = local_client(capacity.endpoint, config=NO_RETRIES)
    table = _new_table(client)
    hot, cold = _keys_apart(4, 2)
    refused = {hot: 0, cold: 0}
    for second in range(3):
        _next_second()
        for key, count in ((hot, 50), (cold, 10)):  # 50 a second against 20 units; 10 against 20
            for offset in range(0, count, 25):
                batch = _puts(key, min(25, count - offset), 1000 * second + offset)
                try:
                    answer = client.batch_write_item(RequestItems={table: batch})
                    refused[key] += len(answer["UnprocessedItems"].get(table, []))
                except client.exceptions.ProvisionedThroughputExceededException:
                    refused[key] += len(batch)
    assert refused[hot] >= 3 * 25
    assert refused[cold] == 0
    # What the console shows of it (GET /local/capacity): the seconds of this table, the hot partition's refusals
    _next_second()
    client.describe_table(TableName=table)  # a request in a new second closes the last one
    shown = [line for line in capacity.heat()["seconds"] if line["table"] == table]
    cells = [cell for line in shown for cell in line["by_partition"] if not cell["index"]]
    assert sum(cell.get("write_throttled", 0) for cell in cells) > 0
    assert len({cell["number"] for cell in cells if cell.get("write_throttled")}) == 1


def test_a_throttled_gsi_throttles_the_table_s_writes(front: tuple[CapacityFront, Recorder]) -> None:
    capacity, _ = front
    client = local_client(capacity.endpoint, config=NO_RETRIES)
    table = _new_table(
        client,
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[
            {"AttributeName": "id", "AttributeType": "S"},
            {"AttributeName": "status", "AttributeType": "S"},
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by-status",
                "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    _next_second()
    items = [{"PutRequest": {"Item": {"id": {"S": f"i{n}"}, "status": {"S": "ACTIVE"}}}} for n in range(25)]
    answer = client.batch_write_item(RequestItems={table: items})
    assert len(answer["UnprocessedItems"][table]) == 5  # the index's one partition took 20; the table's four more
    with pytest.raises(client.exceptions.ProvisionedThroughputExceededException) as raised:
        client.put_item(TableName=table, Item={"id": {"S": "late"}, "status": {"S": "ACTIVE"}})
    assert raised.value.response["ThrottlingReasons"][0]["reason"] == "IndexWriteKeyRangeThroughputExceeded"


@pytest.mark.parametrize("front", [("provisioned=10000", 1.0)], indirect=True)
def test_a_provisioned_table_switched_to_on_demand_keeps_its_partitions(front: tuple[CapacityFront, Recorder]) -> None:
    capacity, _ = front
    client = local_client(capacity.endpoint, config=NO_RETRIES)
    table = _new_table(client)
    model = capacity.operations.tables.tables[table].model
    assert (len(model.keys), model.provisioned) == (14, True)  # 12,000 / 3,000 + 10,000 / 1,000
    client.update_table(TableName=table, BillingMode="PAY_PER_REQUEST")
    assert (len(model.keys), model.provisioned) == (14, False)


def test_the_real_loader_loads_through_the_emulator_without_losing_an_item(
    stack: Stack, front: tuple[CapacityFront, Recorder], monkeypatch: pytest.MonkeyPatch
) -> None:
    capacity, recorder = front
    capacity.operations.tables.scale = 0.1  # 100 write units a partition, 400 for the table: it throttles
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", capacity.endpoint)
    stack.loader, stack.lookup = loader_function(), lookup_function()  # their clients on the emulator's endpoint
    for worker in stack.workers:
        worker.handler = stack.loader.handler
    rows = read_tsv(V4_FILE, 3000)
    stack.put("geo/data.tsv", tsv_bytes(rows))
    stack.drain()
    assert stack.dataset("geo")["status"] == "READY"
    assert_complete(stack, "geo", 1, rows)
    capacity.stop()  # the second of the last writes is counted once it closes: at the latest, at stop
    refused = sum(second.write_throttled for name, second in recorder.seconds if name == stack.table)
    written = sum(second.write for name, second in recorder.seconds if name == stack.table)
    assert written >= len(rows)
    assert refused > 0  # it met the throttle, and paced itself through it


@pytest.mark.parametrize("front", [("on-demand-new", 1.0)], indirect=True)
def test_at_stop_the_last_second_is_written_down_and_said(
    front: tuple[CapacityFront, Recorder], tmp_path: Path
) -> None:
    capacity, recorder = front
    capacity.record = tmp_path / "capacity.jsonl"
    client = local_client(capacity.endpoint, config=NO_RETRIES)
    table = _new_table(client)
    for n in range(5):
        client.put_item(TableName=table, Item={"PK": {"S": f"k{n}"}, "SK": {"N": str(n)}})
    capacity.stop()  # no request comes after the last write to close its second
    lines = [json.loads(line) for line in capacity.record.read_text().splitlines()]
    assert sum(line["write"] for line in lines if line["table"] == table) == 5
    assert [line for line in recorder.lines if f"capacity {table}: " in line] != []


class _Replay:
    """One BatchWriteItem of a trace, at its time, in the simulation."""

    def __init__(self, trace: list[tuple[float, list[Position]]]) -> None:
        self.trace, self.next = trace, 0

    def step(self, sim: Simulation) -> float | None:
        _, batch = self.trace[self.next]
        for where in batch:
            sim.table.write(sim.now, where, 1.0)
        self.next += 1
        return self.trace[self.next][0] if self.next < len(self.trace) else None


def test_the_emulator_and_the_simulation_agree_on_one_request_trace(front: tuple[CapacityFront, Recorder]) -> None:
    # Given a trace: 6 seconds of BatchWriteItem calls every 20 ms, 25 items over 12 keys, more than the table takes
    capacity, recorder = front
    client = local_client(capacity.endpoint, config=NO_RETRIES)
    table = _new_table(client)
    keys = [f"key{n}" for n in range(12)]
    trace = [
        (0.02 * call, [(key, 100 * call + n) for n, key in enumerate(keys[(call + i) % 12] for i in range(25))])
        for call in range(300)
    ]
    # When it is replayed in real time through the emulator
    _next_second()
    started = time.time()
    for at, batch in trace:
        time.sleep(max(0.0, started + at - time.time()))
        requests = [{"PutRequest": {"Item": {"PK": {"S": k}, "SK": {"N": str(sk)}}}} for k, sk in batch]
        with contextlib.suppress(client.exceptions.ProvisionedThroughputExceededException):
            client.batch_write_item(RequestItems={table: requests})
    _next_second()
    client.describe_table(TableName=table)  # a request that closes the last second
    client.put_item(TableName=table, Item={"PK": {"S": "close"}, "SK": {"N": "0"}})
    front_seconds = {s.second - int(started): s.write for name, s in recorder.seconds if name == table}
    # And in virtual time through the simulation
    sim = Simulation(TableModel(parse_mode("on-demand-new"), scale=0.02))
    sim.start(_Replay([(at, [position({"S": k}, {"N": str(sk)}) for k, sk in batch]) for at, batch in trace]))
    sim.run()
    simulated = {s.second: s.write for s in sim.seconds}
    # Then every second accepted the same writes, within 10%
    for second in range(6):
        assert front_seconds.get(second, 0) == pytest.approx(simulated[second], rel=0.1), second
