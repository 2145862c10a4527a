"""A small HTTP proxy with hooks: a front on the port clients use, forwarding to a local service behind it.

Each request goes through the hooks in order: the first whose ``on_request`` returns a ``Response`` answers it
(nothing is forwarded); when none does, the request goes to the backend. Then every hook's ``on_response`` sees
the response and returns the one to send (the same, another, or one cut short: ``Response.cut_at``).

The fronts of the local stack are proxies: the DynamoDB front (the capacity emulator, ``local.capacity``, and the
injected faults, ``local.faults``) and the S3 front (faults). A new check is one more hook, for example::

    class Refuse(Hook):
        def on_request(self, request: Request) -> Response | None:
            return Response(403, {"Content-Type": "application/xml"}, b"<Error>...</Error>") if ... else None
"""

from __future__ import annotations

import contextlib
import socket
import struct
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.client import HTTPConnection
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final
from urllib.parse import urlsplit

# Headers of one connection, never forwarded as they are (RFC 9110 7.6.1); lengths are set again by whoever sends.
HOP_BY_HOP: Final = frozenset(
    {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "expect"}
)
BACKEND_TIMEOUT: Final = 120.0  # an SQS long poll waits up to 20 s
_NO_BODY: Final = frozenset({204, 304})


@dataclass(slots=True)
class Request:
    method: str
    target: str  # the path and the query string, as sent
    headers: dict[str, str]  # names in lower case
    body: bytes = b""
    notes: dict[str, Any] = field(default_factory=dict)  # what a hook's on_request tells its on_response

    @property
    def path(self) -> str:
        return urlsplit(self.target).path


@dataclass(slots=True)
class Response:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    # Send the headers (Content-Length saying the whole body) and only this many bytes, then close the connection.
    cut_at: int | None = None
    reset: bool = False  # close it with a TCP reset rather than a clean close


class Hook:
    """Override either method; the defaults forward the request and pass the response on."""

    def on_request(self, request: Request) -> Response | None:  # noqa: ARG002 - a hook may look at none of it
        return None

    def on_response(self, request: Request, response: Response) -> Response:  # noqa: ARG002
        return response


class Proxy:
    """``port`` (on 127.0.0.1) in front of ``backend`` (``http://host:port``), through ``hooks``."""

    def __init__(self, port: int, backend: str, hooks: Sequence[Hook] = (), *, name: str = "front") -> None:
        self.port, self.backend, self.hooks, self.name = port, backend, list(hooks), name
        self._server: Server | None = None
        self._local = threading.local()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Proxy:
        self._server = Server(("127.0.0.1", self.port), _handler(self))
        threading.Thread(target=self._server.serve_forever, name=self.name, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    def answer(self, request: Request) -> Response:
        """What the hooks and the backend make of ``request``."""
        response = None
        for hook in self.hooks:
            response = hook.on_request(request)
            if response is not None:
                break
        if response is None:
            response = self.forward(request)
        for hook in self.hooks:
            response = hook.on_response(request, response)
        return response

    def forward(self, request: Request) -> Response:
        """The request as the backend answers it (one kept connection a thread; a stale one is opened again)."""
        connection: HTTPConnection | None = getattr(self._local, "connection", None)
        sent = {name: value for name, value in request.headers.items() if name not in HOP_BY_HOP}
        sent.pop("content-length", None)
        body = request.body if request.body or request.method in ("POST", "PUT", "PATCH") else None
        for attempt in range(2):
            if connection is None:
                parts = urlsplit(self.backend)
                connection = HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=BACKEND_TIMEOUT)
                self._local.connection = connection
            try:
                connection.request(request.method, request.target, body=body, headers=sent)
                answer = connection.getresponse()
                data = answer.read()
                headers = {name: value for name, value in answer.getheaders() if name.lower() not in HOP_BY_HOP}
                return Response(answer.status, headers, data)
            except (ConnectionError, OSError):
                connection.close()
                connection = self._local.connection = None
                if attempt:
                    raise
        raise AssertionError("unreachable")


class Server(ThreadingHTTPServer):
    """Its open connections are kept, so that ``close`` ends the kept ones too: ``shutdown`` only stops accepting,
    and a client's kept connection would go on being served by a front that was stopped."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.open: set[socket.socket] = set()
        self.open_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.open_lock:
            self.open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.open_lock:
            self.open.discard(request)
        super().shutdown_request(request)

    def close(self) -> None:
        """Stop, and end every connection still open. A request already read may still be answered (by the
        backend too) after this returns; its answer is not delivered."""
        self.shutdown()
        self.server_close()
        with self.open_lock:  # a connection in the set is not closed yet: its handler discards it under this lock
            for connection in self.open:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # a client gone mid-request (a worker killed on purpose, a client timing out): nothing to say
        super().handle_error(request, client_address)


def _handler(proxy: Proxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # kept connections; Expect: 100-continue is answered by the base class
        # The headers and the body go out in two writes: without TCP_NODELAY the second waits for the client's
        # delayed ACK of the first, 40 ms on Linux, on every answer.
        disable_nagle_algorithm = True

        def _handle(self) -> None:
            headers: dict[str, str] = {}
            for name, value in self.headers.items():
                key = name.lower()
                headers[key] = f"{headers[key]},{value}" if key in headers else value
            request = Request(self.command, self.path, headers, self._body(headers))
            try:
                response = proxy.answer(request)
            except (ConnectionError, OSError):  # the backend is gone (stopping): say so as a gateway would
                response = Response(502, {"Content-Type": "text/plain"}, b"the service behind this front is gone")
            self._send(response)

        def _body(self, headers: dict[str, str]) -> bytes:
            if "chunked" in headers.get("transfer-encoding", "").lower():
                return _read_chunked(self.rfile)
            length = int(headers.get("content-length") or 0)
            return self.rfile.read(length) if length else b""

        def _send(self, response: Response) -> None:
            self.send_response_only(response.status)
            bodiless = self.command == "HEAD" or response.status in _NO_BODY or response.status < 200
            for name, value in response.headers.items():
                if name.lower() != "content-length" or bodiless:  # a HEAD's length is the object's, kept as sent
                    self.send_header(name, value)
            if not bodiless:
                self.send_header("Content-Length", str(len(response.body)))
            self.end_headers()
            if bodiless:
                return
            if response.cut_at is None:
                self.wfile.write(response.body)
                return
            self.wfile.write(response.body[: response.cut_at])
            self.wfile.flush()
            self.close_connection = True
            if response.reset:  # SO_LINGER 0: close() sends a RST, not a FIN
                with contextlib.suppress(OSError):
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = _handle  # noqa: N815

        def log_message(self, *_: Any) -> None:  # the terminal shows the fronts' own lines only
            return

    return Handler


def _read_chunked(stream: Any) -> bytes:
    """A body sent with ``Transfer-Encoding: chunked`` (trailers read and dropped)."""
    parts: list[bytes] = []
    while True:
        size = int(stream.readline().split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            while stream.readline() not in (b"\r\n", b"\n", b""):
                pass
            return b"".join(parts)
        parts.append(stream.read(size))
        stream.readline()
