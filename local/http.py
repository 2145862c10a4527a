"""An HTTP front that turns each request into an API Gateway HTTP API (payload 2.0) event for the lookup handler
and returns the handler's response unchanged.

Lambda gives an execution environment (a process) one event at a time: the front gives the handler one event at a
time too (``ONE_EVENT``), since the router keeps the event it is resolving where every thread of the process sees
it."""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from fencepost.observability import LOOKUP_SERVICE
from local.proxy import Server

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]
Local = Callable[[], Any]  # a document only the local stack has (``GET /local/...``), as JSON

# API Gateway refuses bodies over 10 MB itself (413) before the function sees them.
MAX_BODY = 10 * 1024 * 1024


def to_event(method: str, target: str, headers: dict[str, str], body: bytes, source_ip: str) -> dict[str, Any]:
    """The event API Gateway would send for this request."""
    parts = urlsplit(target)
    query: dict[str, list[str]] = {}
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        query.setdefault(name, []).append(value)
    now = datetime.now(UTC)
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": parts.path or "/",
        "rawQueryString": parts.query,
        "headers": headers,
        "requestContext": {
            "accountId": "000000000000",
            "apiId": "local",
            "domainName": headers.get("host", "localhost"),
            "domainPrefix": "local",
            "http": {
                "method": method,
                "path": parts.path or "/",
                "protocol": "HTTP/1.1",
                "sourceIp": source_ip,
                "userAgent": headers.get("user-agent", ""),
            },
            "requestId": uuid.uuid4().hex,
            "routeKey": "$default",
            "stage": "$default",
            "time": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "timeEpoch": int(now.timestamp() * 1000),
        },
        "isBase64Encoded": False,
    }
    if query:
        # API Gateway joins repeated parameters with commas.
        event["queryStringParameters"] = {name: ",".join(values) for name, values in query.items()}
    if "cookie" in headers:
        event["cookies"] = [c.strip() for c in headers["cookie"].split(";")]
    if body:
        try:
            event["body"] = body.decode("utf-8")
        except UnicodeDecodeError:
            event["body"] = base64.b64encode(body).decode()
            event["isBase64Encoded"] = True
    return event


class _Context:
    function_name = LOOKUP_SERVICE
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:000000000000:function:fencepost-lookup"

    def __init__(self) -> None:
        self.aws_request_id = str(uuid.uuid4())
        self._deadline = time.monotonic() + 10

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


# Powertools' resolver keeps the event it is resolving on its class (``BaseRouter.current_event``), which every
# resolver of a process shares: two events resolved at once in two threads answer each other's paths. Lambda gives a
# process one event at a time; so does this lock, for the front and for the stack's own calls (``LocalStack.dataset``).
ONE_EVENT = threading.Lock()


def lazily(wire: Callable[[], Handler]) -> Handler:
    """The lookup handler, wired from ``wire`` on its first event and given one event at a time (``ONE_EVENT``)."""
    wired: list[Handler] = []

    def invoke(event: dict[str, Any], context: Any) -> dict[str, Any]:
        with ONE_EVENT:
            if not wired:
                wired.append(wire())
            return wired[0](event, context)

    return invoke


def one_event(handler: Handler, event: dict[str, Any], context: Any) -> dict[str, Any]:
    """``handler``'s answer to ``event``, while the process resolves no other event (``ONE_EVENT``)."""
    with ONE_EVENT:
        return handler(event, context)


def serve(wire: Callable[[], Handler], host: str, port: int, local: dict[str, Local] | None = None) -> Any:
    """Start the front (a ``local.proxy.Server``) in a background thread; ``server.close()`` stops it. ``wire``
    makes the lookup handler (``lazily``); ``local``: paths the front answers itself, with JSON (what the local
    stack alone knows: the capacity emulator's)."""
    own, handler = dict(local or {}), lazily(wire)

    class Request(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # The headers and the body go out in two writes: without TCP_NODELAY the second waits for the client's
        # delayed ACK of the first, 40 ms on Linux, on every answer.
        disable_nagle_algorithm = True

        def _handle(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length > MAX_BODY:
                self._send(413, {"content-type": "application/json"}, b'{"message":"Request Entity Too Large"}')
                return
            body = self.rfile.read(length) if length else b""
            path = urlsplit(self.path).path
            if self.command == "GET" and path in own:
                headers_out = {"content-type": "application/json", "cache-control": "no-store"}
                self._send(200, headers_out, dumps(own[path]()).encode())
                return
            headers: dict[str, str] = {}
            for name, value in self.headers.items():
                key = name.lower()
                headers[key] = f"{headers[key]},{value}" if key in headers else value
            event = to_event(self.command, self.path, headers, body, self.client_address[0])
            try:
                response = handler(event, _Context())
            except Exception:  # what API Gateway answers when the function itself fails
                self._send(500, {"content-type": "application/json"}, b'{"message":"Internal Server Error"}')
                return
            payload = response.get("body") or ""
            data = base64.b64decode(payload) if response.get("isBase64Encoded") else payload.encode()
            out = {k.lower(): str(v) for k, v in (response.get("headers") or {}).items()}
            self._send(int(response.get("statusCode", 200)), out, data, response.get("cookies") or [])

        def _send(self, status: int, headers: dict[str, str], data: bytes, cookies: list[str] | None = None) -> None:
            self.send_response(status)
            for name, value in headers.items():
                if name not in ("content-length", "connection"):
                    self.send_header(name, value)
            for cookie in cookies or []:
                self.send_header("set-cookie", cookie)
            if self.command != "HEAD":  # the function answers HEAD without the body: its length is not the GET's
                self.send_header("content-length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = _handle  # noqa: N815

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = Server((host, port), Request)
    threading.Thread(target=server.serve_forever, name="http", daemon=True).start()
    return server


def dumps(document: Any) -> str:
    return json.dumps(document, indent=2)
