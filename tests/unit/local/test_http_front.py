"""The local HTTP front (``local.http``) answers over a kept connection without waiting for delayed ACKs."""

from __future__ import annotations

import time
from typing import Any

import requests

from local.dynamodb import free_port
from local.http import serve


def test_an_answer_over_a_kept_connection_is_not_held_for_the_client_s_delayed_ack() -> None:
    # Headers and body go out in two writes: with Nagle's algorithm on, the body waited 40 ms for every answer
    def handler(_event: dict[str, Any], _context: Any) -> dict[str, Any]:
        return {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": '{"ok":true}'}

    port = free_port()
    server = serve(handler, "127.0.0.1", port)
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
