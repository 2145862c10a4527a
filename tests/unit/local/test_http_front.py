"""The local HTTP front (``local.http``): an environment takes one event at a time, as on Lambda, and an answer
over a kept connection does not wait for delayed ACKs."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import requests

from local.http import serve
from local.ports import free_port


def test_an_answer_over_a_kept_connection_is_not_held_for_the_client_s_delayed_ack() -> None:
    # Headers and body go out in two writes: with Nagle's algorithm on, the body waited 40 ms for every answer
    def handler(_event: dict[str, Any], _context: Any) -> dict[str, Any]:
        return {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": '{"ok":true}'}

    port = free_port()
    server = serve(lambda: handler, "127.0.0.1", port)
    try:
        with requests.Session() as session:
            seconds = []
            for _ in range(60):
                started = time.perf_counter()
                assert session.get(f"http://127.0.0.1:{port}/lookup?ip=1.2.3.4", timeout=10).json() == {"ok": True}
                seconds.append(time.perf_counter() - started)
    finally:
        server.shutdown()
        server.server_close()
    assert sorted(seconds)[30] < 0.025


class _Router:
    """Keeps the event it is answering on itself, as Powertools' resolver does (``current_event``)."""

    def __init__(self) -> None:
        self.current: dict[str, Any] = {}
        self.busy = 0

    def __call__(self, event: dict[str, Any], _context: Any) -> dict[str, Any]:
        self.busy += 1
        self.current = event
        time.sleep(0.01)  # another request arriving meanwhile would replace ``current`` in a shared environment
        answer, self.busy = self.current["rawPath"], self.busy - 1
        return {"statusCode": 200, "headers": {"content-type": "text/plain"}, "body": answer}


def test_concurrent_requests_each_get_an_environment_of_their_own() -> None:
    wired: list[_Router] = []
    lock = threading.Lock()

    def wire() -> _Router:
        with lock:
            wired.append(_Router())
            return wired[-1]

    server = serve(wire, "127.0.0.1", 0)
    port = server.server_address[1]

    def get(number: int) -> str:
        return requests.get(f"http://127.0.0.1:{port}/console/{number}.js", timeout=10).text

    try:
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(get, range(200)))
    finally:
        server.shutdown()
        server.server_close()
    assert answers == [f"/console/{number}.js" for number in range(200)]
    assert 1 < len(wired) <= 8  # concurrent requests made environments, idle ones were used again
