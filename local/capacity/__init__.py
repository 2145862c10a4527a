"""The capacity emulator: an HTTP endpoint that speaks DynamoDB's JSON protocol, in front of DynamoDB Local.

Every request is accounted on the capacity model of its table (``capacity``, real time) before it is
forwarded (``accounting``): what DynamoDB would refuse is refused here, in DynamoDB's own error format
(``ProvisionedThroughputExceededException`` with ``ThrottlingReasons``, ``RequestLimitExceeded``), and a batch's
refused items come back in ``UnprocessedItems`` / ``UnprocessedKeys``. ``ReturnConsumedCapacity`` answers carry
the model's units. The loader, the lookup function, the AWS CLI and any SDK see what DynamoDB would answer.

What each partition accepted and refused is logged every ``LOG_EVERY`` seconds while requests come, written a
line a second to ``capacity.jsonl`` (``make run``: ``var/capacity.jsonl``), and the last ``RECENT_SECONDS`` lines are
kept for the console (``make run`` serves them at ``GET /local/capacity``: ``heat``).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from capacity.modes import Mode
from capacity.table import Second
from local.capacity.operations import Operations, Reply
from local.proxy import Hook, Proxy, Request, Response

LOG_EVERY: Final = 10.0
RECENT_SECONDS: Final = 120  # lines kept for ``heat`` (all tables together)
FORWARDED: Final = ("content-type", "x-amz-target", "authorization", "x-amz-date", "x-amz-security-token")


class CapacityFront(Hook):
    """The emulator: the last hook of a ``local.proxy.Proxy`` on ``port`` (``hooks`` come before it: the faults)."""

    def __init__(
        self,
        port: int,
        backend: str,
        mode: Mode,
        *,
        scale: float = 1.0,
        record: Path | None = None,
        say: Callable[[str], None] = print,
        hooks: Sequence[Hook] = (),
    ) -> None:
        self.port, self.backend, self.mode, self.scale = port, backend, mode, scale
        self.record, self.say = record, say
        self.operations = Operations(mode, scale, self._second, self._forward)
        self.proxy = Proxy(port, backend, [*hooks, self], name="capacity-front")
        self._window: dict[str, list[Second]] = {}
        self._recent: deque[dict[str, Any]] = deque(maxlen=RECENT_SECONDS)
        self._logged = time.monotonic()
        self._lock = threading.Lock()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def describe(self) -> str:
        return f"{self.mode.name}, scale {self.scale:g}"

    def start(self) -> CapacityFront:
        self.proxy.start()
        return self

    def stop(self) -> None:
        """No more requests; the second each table is in closed (written to ``capacity.jsonl`` and the console's
        seconds) and the last summary said, as a later request would have done."""
        self.proxy.stop()
        self.operations.tables.close_seconds()
        with self._lock:
            self._say_window()

    # -- the hook: every request accounted, then forwarded or refused -------------------------------------------

    def on_request(self, request: Request) -> Response:
        reply = self.operations.handle(request.headers.get("x-amz-target", ""), request.headers, request.body)
        return Response(reply.status, dict(reply.headers), reply.body)

    def _forward(self, headers: dict[str, str], body: bytes) -> Reply:
        """The request as DynamoDB Local answers it."""
        sent = {name: value for name, value in headers.items() if name in FORWARDED}
        response = self.proxy.forward(Request("POST", "/", sent, body))
        kept = {name: value for name, value in response.headers.items() if name.lower() != "content-length"}
        return Reply(response.status, kept, response.body)

    # -- what each second held ---------------------------------------------------------------------------------

    def heat(self) -> dict[str, Any]:
        """The last seconds, each partition's units accepted and refused (``GET /local/capacity`` under make run)."""
        with self._lock:
            seconds = list(self._recent)
        return {"emulated": True, "mode": self.describe(), "seconds": seconds}

    def _second(self, table: str, second: Second) -> None:
        with self._lock:
            line = {
                "table": table,
                "second": second.second,
                "partitions": second.table_partitions,
                "write": second.write,
                "write_throttled": second.write_throttled,
                "read": second.read,
                "by_partition": [
                    {key: value for key, value in vars_of(p).items() if value or key in ("index", "number")}
                    for p in second.partitions
                ],
            }
            self._recent.append(line)
            if self.record is not None:
                with self.record.open("a") as handle:
                    handle.write(json.dumps(line, separators=(",", ":")) + "\n")
            self._window.setdefault(table, []).append(second)
            if time.monotonic() - self._logged >= LOG_EVERY:
                self._logged = time.monotonic()
                self._say_window()

    def _say_window(self) -> None:
        """Each table's summary of the seconds since the last one said (under ``_lock``)."""
        for name, seconds in self._window.items():
            self.say(summary(name, seconds))
        self._window.clear()


def vars_of(partition: Any) -> dict[str, Any]:
    return {name: getattr(partition, name) for name in partition.__slots__}


def summary(table: str, seconds: list[Second]) -> str:
    """One line for the terminal: a table's accepted and refused units a second, and its busiest partitions."""
    span = max(1, seconds[-1].second - seconds[0].second + 1)
    written = sum(s.write for s in seconds) / span
    refused = sum(s.write_throttled for s in seconds) / span
    read = sum(s.read for s in seconds) / span
    per: dict[int, list[float]] = {}
    for second in seconds:
        for p in second.partitions:
            if not p.index:
                counts = per.setdefault(p.number, [0.0, 0.0])
                counts[0] += p.write / span
                counts[1] += p.write_throttled / span
    busiest = sorted(per.items(), key=lambda entry: -sum(entry[1]))[:4]
    parts = ", ".join(f"#{n} {ok:,.0f}/{no:,.0f}" for n, (ok, no) in busiest)
    return (
        f"[{time.strftime('%H:%M:%S')}] capacity {table}: {written:,.0f} write units/s accepted, {refused:,.0f}/s "
        f"throttled, {read:,.0f} read units/s, {seconds[-1].table_partitions} partitions "
        f"(busiest, accepted/throttled a second: {parts})"
    )
