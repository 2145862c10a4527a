"""One request to a publisher, on a connection made here rather than by ``urllib``, for two reasons:

- it goes to an address already checked (``fencepost.downloads.destinations``), never resolved a second time, and
  for ``https`` the certificate is verified against the host's name, which is also sent as SNI;
- every wait is bounded by the time the check has left: the connect, the TLS handshake, sending the request and each
  read of the status line, the headers and the body. ``http.client`` reads the headers a line at a time with no hook
  between lines, so the socket it reads is wrapped (``_Bounded``): before each read its timeout is set to what is left
  (at most the policy's ``timeout``), and a server sending one header line every 2 s is stopped at the deadline.
"""

from __future__ import annotations

import http.client
import io
import socket
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fencepost.downloads.bounds import Budget
from fencepost.downloads.destinations import Address


@dataclass(frozen=True, slots=True)
class Target:
    """Where one request goes: the host as named (the Host header, SNI and the certificate's name), its checked
    addresses, and the path with its query."""

    host: str
    port: int
    https: bool
    addresses: Sequence[Address]
    path: str


class Answer:
    """An open response; closing it closes its connection (one request per connection)."""

    def __init__(self, response: http.client.HTTPResponse, sock: socket.socket) -> None:
        self.response, self.sock = response, sock

    def __enter__(self) -> Answer:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.response.close()
        finally:
            self.sock.close()


def ask(target: Target, headers: dict[str, str], tls: ssl.SSLContext | None, budget: Budget) -> Answer:
    """Send a GET to ``target`` and read its status line and headers, all within ``budget``."""
    sock = _connect(target.addresses, budget)
    try:
        if target.https:
            sock.settimeout(budget.left("the TLS handshake"))
            sock = (tls or ssl.create_default_context()).wrap_socket(sock, server_hostname=target.host)
        connection = http.client.HTTPConnection(target.host, target.port)
        bounded = _Bounded(sock, budget)
        connection.sock = bounded  # what http.client uses of a socket
        connection.putrequest("GET", target.path, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", _host_header(target))
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        bounded.doing = "downloading the body"
    except BaseException:
        sock.close()
        raise
    return Answer(response, sock)


def _connect(addresses: Sequence[Address], budget: Budget) -> socket.socket:
    """A connection to the first of ``addresses`` that answers (each as checked: no name is resolved here)."""
    failure: OSError = OSError("no address")
    for family, address in addresses:
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(budget.left("connecting"))
            sock.connect(address)
        except OSError as error:
            sock.close()
            failure = error
            continue
        except BaseException:
            sock.close()
            raise
        return sock
    budget.check("connecting")
    raise failure


def _host_header(target: Target) -> str:
    host = f"[{target.host}]" if ":" in target.host else target.host
    return host if target.port == (443 if target.https else 80) else f"{host}:{target.port}"


class _Bounded:
    """A socket as ``http.client`` uses it (``sendall``, ``makefile``, ``close``), each wait within the budget. The
    connection's socket is closed by ``Answer``, once the response has been read."""

    def __init__(self, sock: socket.socket, budget: Budget) -> None:
        self.sock, self.budget = sock, budget
        self.doing = "waiting for the answer's status and headers"

    def sendall(self, data: bytes) -> None:
        self.sock.settimeout(self.budget.left("sending the request"))
        self.sock.sendall(data)

    def makefile(self, *_: Any, **__: Any) -> io.BufferedReader:
        """Only ever asked for reading ("rb"), by the response."""
        return io.BufferedReader(_Reader(self))

    def close(self) -> None:
        pass


class _Reader(io.RawIOBase):
    def __init__(self, bounded: _Bounded) -> None:
        super().__init__()
        self.bounded = bounded

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        sock, budget = self.bounded.sock, self.bounded.budget
        sock.settimeout(budget.left(self.bounded.doing))
        try:
            return sock.recv_into(buffer)
        except TimeoutError:
            budget.check(self.bounded.doing)  # OutOfTime when that was the deadline
            raise
