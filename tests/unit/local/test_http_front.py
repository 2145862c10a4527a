"""The local HTTP front (``local.http``): the handler takes one event at a time, as a Lambda environment does, and
an answer over a kept connection does not wait for delayed ACKs."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import requests
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response

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


def test_concurrent_requests_through_powertools_resolvers_each_get_their_own_answer() -> None:
    # Powertools keeps the event it resolves on its router class, shared by every resolver of the process: two
    # requests resolved at once in two threads answered each other's paths (a console module served under another's
    # name, and kept by the browser a year)
    wired: list[APIGatewayHttpResolver] = []

    def wire() -> Any:
        app = APIGatewayHttpResolver()

        @app.get("/console/<asset>")
        def asset(asset: str) -> Response[str]:
            time.sleep(0.01)  # another request arriving meanwhile would replace the router's event
            return Response(200, "text/plain", f"{asset} {app.current_event.raw_path}")

        wired.append(app)
        return app.resolve

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
    assert answers == [f"{number}.js /console/{number}.js" for number in range(200)]
    assert len(wired) == 1
