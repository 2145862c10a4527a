"""Writes of one container running at once (``make run``'s workers share a writer) share its pacer: no two threads
are ever inside it at once, and every item is written once; a thread that fails ends its write at once."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from fencepost.aws.dynamo.pacing import Pacer
from fencepost.aws.dynamo.writer import BulkWriter


class _Quick:
    """BatchWriteItem that takes every item at once, counting what it wrote."""

    def __init__(self) -> None:
        self.written: Counter[str] = Counter()
        self.lock = threading.Lock()

    def batch_write_item(self, RequestItems: dict[str, list[Any]]) -> dict[str, Any]:  # noqa: N803 - boto3's name
        ((_, requests),) = RequestItems.items()
        with self.lock:
            for request in requests:
                item = request["PutRequest"]["Item"]
                self.written[f"{item['PK']['S']}/{item['SK']['N']}"] += 1
        return {}


class _Table:
    def __init__(self, client: _Quick) -> None:
        self.client, self.name = client, "ranges"


class _Inside:
    """How many threads are inside the pacer, and the most there ever were."""

    def __init__(self) -> None:
        self.now = self.most = 0
        self.lock = threading.Lock()

    def wrap(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def guarded(*args: Any, **kwargs: Any) -> Any:
            with self.lock:
                self.now += 1
                self.most = max(self.most, self.now)
            try:
                time.sleep(0.0002)  # long enough for another thread to come in, if nothing keeps it out
                return method(*args, **kwargs)
            finally:
                with self.lock:
                    self.now -= 1

        return guarded


def test_concurrent_writes_through_one_writer_never_share_the_pacer_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    inside = _Inside()
    for name in ("reserve", "accepted", "refused"):
        monkeypatch.setattr(Pacer, name, inside.wrap(getattr(Pacer, name)))
    client = _Quick()
    writer = BulkWriter(_Table(client), threads=4, sleep=lambda _: None)  # type: ignore[arg-type]
    errors: list[BaseException] = []
    outcomes = []

    def write(number: int) -> None:
        items = [{"PK": {"S": f"geo#1#4/{n % 50}"}, "SK": {"N": f"{number}{n:05d}"}} for n in range(5_000)]
        try:
            outcomes.append(writer.put(items, deadline=float("inf")))
        except BaseException as error:
            errors.append(error)

    runs = [threading.Thread(target=write, args=(number,)) for number in range(1, 4)]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    assert errors == []
    assert inside.most == 1
    assert [outcome.unfinished for outcome in outcomes] == [[]] * 3
    assert sorted(client.written.values()) == [1] * 15_000


class _FailsOnce(_Quick):
    """BatchWriteItem whose third call fails with an error the writer does not handle (as a bug or a lost
    connection pool would); the others write."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def batch_write_item(self, RequestItems: dict[str, list[Any]]) -> dict[str, Any]:  # noqa: N803 - boto3's name
        with self.lock:
            self.calls += 1
            if self.calls == 3:
                raise RuntimeError("the connection pool is gone")
        return super().batch_write_item(RequestItems=RequestItems)


def test_a_thread_that_fails_ends_the_whole_write_at_once_not_at_its_deadline() -> None:
    clock = [0.0]

    def sleep(seconds: float) -> None:  # time passes only as the threads wait
        clock[0] += seconds

    client = _FailsOnce()
    writer = BulkWriter(_Table(client), threads=4, clock=lambda: clock[0], sleep=sleep)  # type: ignore[arg-type]
    items = [{"PK": {"S": f"geo#1#4/{n % 50}"}, "SK": {"N": str(n)}} for n in range(5_000)]

    with pytest.raises(RuntimeError, match="connection pool"):
        writer.put(items, deadline=900.0)

    # The other threads stopped: they did not wait for the failed thread's batch until the deadline
    assert clock[0] < 60.0
    assert sum(client.written.values()) < len(items)
