"""``make run``'s entry point, end to end: started as a user starts it, used over HTTP and S3, stopped with Ctrl-C."""

from __future__ import annotations

import random
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from fencepost.core.space.addresses import V4, format_address
from tests.reference import Reference
from tests.support import V4_FILE, family_ranges, read_tsv
from tests.support.lookups import tsv_bytes
from tests.support.stacks import Running, start, stop


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    started = start(tmp_path)
    yield started
    if started.process.poll() is None:
        started.process.kill()


def test_the_local_stack_loads_answers_switches_and_stops_cleanly(running: Running) -> None:
    # The sample dataset answers the first lookup
    running.wait_ready("sample", 1)
    status, body = running.get("/lookup", ip="8.8.8.8", dataset="sample")
    assert (status, body["data"]["asn"]) == (200, "15169")
    # Given a slice of the shared IPv4 file uploaded through S3
    rows = read_tsv(V4_FILE, 32_000)[20_000:32_000]
    running.s3.put_object(Bucket="ranges", Key="geo/ranges.tsv", Body=tsv_bytes(rows))
    record = running.wait_ready("geo", 1)
    assert record["ranges"] == len(rows)
    # Then lookups agree with the overlap rule applied to the rows
    ranges = family_ranges(rows)[V4]
    reference = Reference(ranges.starts, ranges.ends)
    rng = random.Random(3)
    addresses = [rng.randint(min(ranges.starts), max(ranges.ends)) for _ in range(300)]
    for address in addresses:
        row = reference.answer(address)
        status, body = running.get("/lookup", ip=format_address(V4, address), dataset="geo")
        if row is None:
            assert (status, body["error"]["code"]) == (404, "NOT_FOUND")
        else:
            assert (status, body["data"]) == (200, {"col3": ranges.values[row][0]})
    # When the file is replaced by its next release (one row in ten answers something else: within the gates)
    replaced = [[start, end, f"X{value}" if k % 10 == 0 else value] for k, (start, end, value) in enumerate(rows)]
    running.s3.put_object(Bucket="ranges", Key="geo/ranges.tsv", Body=tsv_bytes(replaced))
    running.wait_ready("geo", 2)
    # Then lookups answer from the new version
    first_of_row_100 = format_address(V4, ranges.starts[100])
    status, body = running.get("/lookup", ip=first_of_row_100, dataset="geo")
    assert (status, body["version"], body["data"]["col3"].startswith("X")) == (200, 2, True)
    # And Ctrl-C stops everything it started
    assert _dynamodb_local(running.dynamodb_port).returncode == 0  # found while it runs: the pattern matches it
    output = stop(running)
    assert "Stopped: nothing is left running." in output
    java = _dynamodb_local(running.dynamodb_port)
    assert java.returncode == 1, java.stdout  # no DynamoDB Local left behind
    assert not _port_open(running.dynamodb_port)


def _dynamodb_local(port: int) -> subprocess.CompletedProcess[bytes]:
    """``pgrep`` for the DynamoDB Local on ``port``: through the loopback launcher, or the jar as it is."""
    pattern = rf"(LoopbackDynamoDBLocal|DynamoDBLocal\.jar) .*-port {port}$"
    return subprocess.run(["pgrep", "-f", pattern], capture_output=True, check=False)


def _port_open(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0
