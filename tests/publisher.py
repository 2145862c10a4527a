"""A publisher on this machine: a real HTTP(S) server that serves releases the way download sites do (ETag,
Last-Modified, 304 to a conditional request, Retry-After on a 503, redirects, basic authentication), and misbehaves
on request (a body cut short of its length, a body without a length, a body or headers that trickle, a status with a
reason phrase of its choosing); over TLS it records the name each client asked for (SNI)."""

from __future__ import annotations

import base64
import datetime
import email.utils
import hashlib
import ipaddress
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class Route:
    body: bytes = b""
    etag: bool = True
    modified: float | None = 1_700_000_000.0  # Last-Modified, as a timestamp (None: not sent)
    failures: list[tuple[int, str | None]] = field(default_factory=list)  # (status, Retry-After) before the body
    redirect: str | None = None
    auth: tuple[str, str] | None = None
    cut_at: int | None = None  # send the full Content-Length, then only this many bytes
    no_length: bool = False  # no Content-Length: the body ends when the connection closes
    trickle: float = 0.0  # seconds between the body's bytes, sent one at a time (a server that crawls)
    header_trickle: float = 0.0  # seconds between header lines, 90 of them, before the body (a server that stalls)
    refuse: tuple[int, str] | None = None  # answer this status and reason phrase, with no body
    headers: dict[str, str] = field(default_factory=dict)  # sent with the body

    @property
    def tag(self) -> str:
        return '"' + hashlib.sha256(self.body).hexdigest()[:16] + '"'


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    status: int
    target: str = ""  # the path and query as requested


class Publisher:
    """``with Publisher() as site:``; ``site.publish("/a.csv", body)``; ``site.url("/a.csv")``."""

    def __init__(self, tls: tuple[Path, Path] | None = None, host: str = "127.0.0.1") -> None:
        self.routes: dict[str, Route] = {}
        self.seen: list[Seen] = []
        self.sni: list[str | None] = []  # the server name each TLS client asked for
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer((host, 0), _handler(self))
        self.scheme = "http"
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(str(tls[0]), str(tls[1]))
            context.sni_callback = lambda _socket, name, _context: self.sni.append(name)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.scheme = "https"
        self.host = host
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> Publisher:
        self.thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    def url(self, path: str, host: str | None = None) -> str:
        return f"{self.scheme}://{host or self.host}:{self.server.server_address[1]}{path}"

    def publish(self, path: str, body: bytes, **options: Any) -> Route:
        route = Route(body=body, **options)
        with self.lock:
            self.routes[path] = route
        return route

    def requests(self, path: str) -> list[Seen]:
        with self.lock:
            return [seen for seen in self.seen if seen.path == path]


def _handler(site: Publisher) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # one request a connection: a cut body ends with the connection

        def log_message(self, *_: Any) -> None:
            pass

        def do_GET(self) -> None:
            path = self.path if self.path in site.routes else self.path.split("?", 1)[0]
            self.seen = Seen(path, dict(self.headers.items()), 0, self.path)
            with site.lock:  # seen before it is answered: a test reads it once its answer arrived
                site.seen.append(self.seen)
                route = site.routes.get(path)
                failure = route.failures.pop(0) if route is not None and route.failures else None
            self._answer(route, failure)

        def send_response(self, code: int, message: str | None = None) -> None:
            self.seen.status = code
            super().send_response(code, message)

        def _answer(self, route: Route | None, failure: tuple[int, str | None] | None) -> int:
            if route is None:
                return self._status(404)
            if failure is not None:
                return self._status(failure[0], {"Retry-After": failure[1]} if failure[1] else {})
            if route.auth is not None and self.headers.get("Authorization") != _basic(route.auth):
                return self._status(401, {"WWW-Authenticate": 'Basic realm="downloads"'})
            if route.redirect is not None or route.refuse is not None:
                return self._elsewhere(route)
            validators = {"ETag": route.tag} if route.etag else {}
            if route.modified is not None:
                validators["Last-Modified"] = email.utils.formatdate(route.modified, usegmt=True)
            if self._unchanged(route):
                return self._status(304, validators)
            self.send_response(200)
            for name, value in validators.items():
                self.send_header(name, value)
            if not route.no_length:
                self.send_header("Content-Length", str(len(route.body)))
            for name, value in route.headers.items():
                self.send_header(name, value)
            if route.header_trickle:
                self.flush_headers()
                self._trickle_headers(route.header_trickle)
            self.end_headers()
            self._body(route)
            return 200

        def _elsewhere(self, route: Route) -> int:
            """A redirect, or a refusal with the route's reason phrase."""
            if route.refuse is not None:
                return self._status(route.refuse[0], reason=route.refuse[1])
            return self._status(302, {"Location": route.redirect or ""})

        def _trickle_headers(self, pause: float) -> None:
            for line in range(90):  # (http.client reads at most 100 header lines)
                time.sleep(pause)
                try:
                    self.wfile.write(f"X-Line-{line}: {line}\r\n".encode())
                    self.wfile.flush()
                except OSError:  # the client gave up
                    return

        def _body(self, route: Route) -> None:
            body = route.body if route.cut_at is None else route.body[: route.cut_at]
            if not route.trickle:
                self.wfile.write(body)
                return
            for at in range(len(body)):
                self.wfile.write(body[at : at + 1])
                self.wfile.flush()
                time.sleep(route.trickle)

        def _unchanged(self, route: Route) -> bool:
            tag = self.headers.get("If-None-Match")
            if tag is not None:
                return route.etag and tag == route.tag
            since = self.headers.get("If-Modified-Since")
            if since is None or route.modified is None:
                return False
            return email.utils.parsedate_to_datetime(since).timestamp() >= int(route.modified)

        def _status(self, status: int, headers: dict[str, str] | None = None, reason: str | None = None) -> int:
            self.send_response(status, reason)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return status

    return Handler


def _basic(auth: tuple[str, str]) -> str:
    return "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1, localhost and publisher.test, and its key, as PEM files (the certificate is its
    own CA)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "publisher.test")])
    now = datetime.datetime.now(datetime.UTC)
    names = [
        x509.DNSName("localhost"),
        x509.DNSName("publisher.test"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
    ]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "publisher.pem", directory / "publisher.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


def lines(count: int, start: int = 0) -> Iterator[bytes]:
    """``count`` lines of a network list, one /24 each."""
    for index in range(start, start + count):
        yield f"10.{index // 256 % 256}.{index % 256}.0/24\n".encode()
