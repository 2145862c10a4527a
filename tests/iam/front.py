"""An S3 endpoint that answers as AWS would under one role's policy: a proxy in front of moto's S3 that refuses what
the role may not do (403 ``AccessDenied``), and answers a read of a missing object 403 rather than 404 when the role
may not list the bucket, as S3 does ("If you don't have the s3:ListBucket permission, Amazon S3 returns an HTTP
status code 403"). Everything it refused is kept in ``refused`` for the test to show."""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

from tests.iam.policy import Permissions
from tests.iam.s3_actions import needed

_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length", "host"})


def _denied(resource: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code>'
        f"<Message>Access Denied</Message><Resource>{resource}</Resource></Error>"
    ).encode()


class PolicyFront:
    """``with PolicyFront(backend, permissions) as front:`` serves ``front.endpoint`` until the block ends."""

    def __init__(self, backend: str, permissions: Permissions) -> None:
        self.backend = urlsplit(backend)
        self.permissions = permissions
        self.refused: list[str] = []
        self.read: list[str] = []  # the key of every object read (GET or HEAD), in order
        self.written: list[str] = []  # the key of every object written (PUT, or an upload's completion)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._server.shutdown()
        self._server.server_close()

    def decide(self, method: str, target: str, headers: dict[str, str], body: bytes) -> tuple[bool, bool, str]:
        """Whether the request is allowed; whether a 404 for it becomes a 403; what it asked, for messages."""
        bucket, key, actions = needed(method, target, headers, body)
        if key is not None and method in ("GET", "HEAD"):
            self.read.append(key)
        completes = method == "POST" and "uploadId=" in target  # an upload in parts is written when completed
        if key is not None and ((method == "PUT" and "partNumber=" not in target) or completes):
            self.written.append(key)
        allowed = all(self.permissions.allows(action, resource) for action, resource in actions)
        hidden = key is not None and not self.permissions.allows("s3:ListBucket", f"arn:aws:s3:::{bucket}")
        return allowed, hidden, " ".join(f"{action} {resource}" for action, resource in actions)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        front = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _any(self) -> None:
                body = self._body()
                headers = {name: value for name, value in self.headers.items() if name.lower() not in _HOP}
                allowed, hidden, asked = front.decide(self.command, self.path, headers, body)
                if not allowed:
                    front.refused.append(asked)
                    denial = _denied(self.path)
                    self._reply(403, {"Content-Type": "application/xml"}, denial, str(len(denial)))
                    return
                connection = http.client.HTTPConnection(front.backend.netloc, timeout=60)
                try:
                    connection.request(self.command, self.path, body=body or None, headers=headers)
                    answer = connection.getresponse()
                    data = answer.read()
                    status, kept = answer.status, {k: v for k, v in answer.getheaders() if k.lower() not in _HOP}
                    length = answer.getheader("Content-Length", "0")
                finally:
                    connection.close()
                if status == 404 and hidden and self.command in ("GET", "HEAD"):
                    front.refused.append(f"{asked} (missing, and no s3:ListBucket)")
                    status, kept, data = 403, {"Content-Type": "application/xml"}, _denied(self.path)
                    length = str(len(data))
                self._reply(status, kept, data, length if self.command == "HEAD" else str(len(data)))

            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    chunks = []
                    while size := int(self.rfile.readline().split(b";")[0], 16):
                        chunks.append(self.rfile.read(size))
                        self.rfile.readline()
                    self.rfile.readline()
                    return b"".join(chunks)
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def _reply(self, status: int, headers: dict[str, str], data: bytes, length: str) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", length)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            def do_GET(self) -> None:
                self._any()

            def do_HEAD(self) -> None:
                self._any()

            def do_PUT(self) -> None:
                self._any()

            def do_POST(self) -> None:
                self._any()

            def do_DELETE(self) -> None:
                self._any()

        return Handler
