"""A local front's connections (``local.proxy``): an answer over a kept connection is not held for the client's
delayed ACK, and a stopped front ends the connections clients kept open."""

from __future__ import annotations

import time
from http.client import HTTPConnection

import pytest
import requests

from local.ports import free_port
from local.proxy import Hook, Proxy, Request, Response


class Answers(Hook):
    def on_request(self, request: Request) -> Response:
        return Response(200, {"Content-Type": "application/json"}, b'{"ok": true}')


class Counted(Answers):
    def __init__(self) -> None:
        self.requests = 0

    def on_request(self, request: Request) -> Response:
        self.requests += 1
        return super().on_request(request)


def test_an_answer_over_a_kept_connection_is_not_held_for_the_client_s_delayed_ack() -> None:
    # Headers and body go out in two writes: with Nagle's algorithm on, the body waited 40 ms for every answer
    proxy = Proxy(free_port(), "http://127.0.0.1:9", [Answers()]).start()
    try:
        with requests.Session() as session:
            seconds = []
            for _ in range(60):
                started = time.perf_counter()
                assert session.post(proxy.endpoint, data=b"{}", timeout=10).json() == {"ok": True}
                seconds.append(time.perf_counter() - started)
    finally:
        proxy.stop()
    assert sorted(seconds)[30] < 0.025


def test_a_stopped_front_ends_its_kept_connections_and_forwards_nothing_more() -> None:
    answered = Counted()
    proxy = Proxy(free_port(), "http://127.0.0.1:9", [answered]).start()
    kept = HTTPConnection("127.0.0.1", proxy.port, timeout=5)

    def post() -> bytes:
        kept.request("POST", "/", body=b"{}")
        return kept.getresponse().read()

    try:
        assert post() == b'{"ok": true}'
        proxy.stop()
        with pytest.raises(ConnectionError):  # the connection ended (closed or reset), not answered by a stopped front
            post()
    finally:
        kept.close()
    assert answered.requests == 1
