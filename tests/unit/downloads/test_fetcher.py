"""The fetcher against a real HTTP(S) server on this machine: validators, retries, redirects, bounds, credentials."""

from __future__ import annotations

import hashlib
import ssl
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fencepost.downloads import Fetcher, FetchError, FetchPolicy, OutOfTime, Request
from tests.publisher import Publisher, self_signed

BODY = b"".join(f"10.0.{k}.0/24\n".encode() for k in range(200))
LOCAL = FetchPolicy(https_only=False, backoff=0.01, attempts=3, timeout=5, allow_loopback=True)


@pytest.fixture
def site() -> Iterator[Publisher]:
    with Publisher() as publisher:
        yield publisher


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def fetch(site: Publisher, tmp_path: Path, path: str = "/list.txt", **options: object) -> object:
    return Fetcher(LOCAL).get(Request(url=site.url(path), shown=path, **options), tmp_path)  # type: ignore[arg-type]


def test_a_download_is_kept_with_its_checksum_and_validators(site: Publisher, tmp_path: Path) -> None:
    route = site.publish("/list.txt", BODY)
    fetched = Fetcher(LOCAL).get(Request(url=site.url("/list.txt"), shown="list"), tmp_path)
    assert fetched.path is not None
    assert fetched.path.read_bytes() == BODY
    assert fetched.sha256 == hashlib.sha256(BODY).hexdigest()
    assert fetched.size == len(BODY)
    assert fetched.etag == route.tag
    assert fetched.last_modified == "Tue, 14 Nov 2023 22:13:20 GMT"
    first = site.requests("/list.txt")[0].headers
    assert "If-None-Match" not in first
    assert "If-Modified-Since" not in first


def test_an_unchanged_release_is_a_304_and_no_body(site: Publisher, tmp_path: Path) -> None:
    route = site.publish("/list.txt", BODY)
    fetcher = Fetcher(LOCAL)
    fetched = fetcher.get(Request(url=site.url("/list.txt"), shown="list", etag=route.tag), tmp_path)
    assert fetched.path is None
    assert fetched.etag == route.tag
    assert site.requests("/list.txt")[-1].status == 304
    assert site.requests("/list.txt")[-1].headers["If-None-Match"] == route.tag
    assert list(tmp_path.iterdir()) == []  # nothing kept
    site.publish("/list.txt", BODY + b"10.1.0.0/24\n")
    changed = fetcher.get(Request(url=site.url("/list.txt"), shown="list", etag=route.tag), tmp_path)
    assert changed.path is not None
    assert changed.size == len(BODY) + 12


def test_last_modified_alone_makes_the_request_conditional(site: Publisher, tmp_path: Path) -> None:
    site.publish("/list.txt", BODY, etag=False)
    first = Fetcher(LOCAL).get(Request(url=site.url("/list.txt"), shown="list"), tmp_path)
    assert first.etag is None
    assert first.last_modified is not None
    again = Fetcher(LOCAL).get(
        Request(url=site.url("/list.txt"), shown="list", last_modified=first.last_modified), tmp_path
    )
    assert again.path is None
    assert site.requests("/list.txt")[-1].headers["If-Modified-Since"] == first.last_modified


def test_a_503_is_retried_after_what_retry_after_asks(site: Publisher, tmp_path: Path) -> None:
    site.publish("/list.txt", BODY, failures=[(503, "3"), (502, None)])
    sleeps = Sleeps()
    fetched = Fetcher(LOCAL, sleep=sleeps).get(Request(url=site.url("/list.txt"), shown="list"), tmp_path)
    assert fetched.path is not None
    assert fetched.path.read_bytes() == BODY
    assert sleeps == [3.0, 0.02]  # Retry-After, then the second retry's backoff (doubled from 0.01)
    assert [seen.status for seen in site.requests("/list.txt")] == [503, 502, 200]


def test_a_429_asking_too_long_a_wait_fails_the_check(site: Publisher, tmp_path: Path) -> None:
    site.publish("/list.txt", BODY, failures=[(429, "3600")])
    with pytest.raises(FetchError, match=r"list: the server answered 429, and asked to wait 3600 s"):
        Fetcher(LOCAL, sleep=Sleeps()).get(Request(url=site.url("/list.txt"), shown="list"), tmp_path)


def test_failures_that_cannot_pass_are_not_retried(site: Publisher, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match=r"^/gone.txt: the server answered 404"):
        fetch(site, tmp_path, "/gone.txt")
    assert len(site.requests("/gone.txt")) == 1


def test_retries_end_in_a_failure_naming_the_attempts(site: Publisher, tmp_path: Path) -> None:
    site.publish("/list.txt", BODY, failures=[(503, None)] * 5)
    with pytest.raises(FetchError, match=r"answered 503 \(3 attempts\)"):
        Fetcher(LOCAL, sleep=Sleeps()).get(Request(url=site.url("/list.txt"), shown="list"), tmp_path)


def test_a_body_cut_short_is_never_kept(site: Publisher, tmp_path: Path) -> None:
    site.publish("/list.txt", BODY, cut_at=500)
    with pytest.raises(FetchError, match=rf"ended after 500 bytes, short of its length|500 of {len(BODY):,}"):
        Fetcher(LOCAL, sleep=Sleeps()).get(Request(url=site.url("/list.txt"), shown="list"), tmp_path)
    assert len(site.requests("/list.txt")) == 3  # retried: a cut connection may pass
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("no_length", [False, True], ids=["announced", "read"])
def test_a_body_past_max_bytes_is_refused_and_nothing_kept(site: Publisher, tmp_path: Path, no_length: bool) -> None:
    site.publish("/list.txt", BODY, no_length=no_length)
    with pytest.raises(FetchError, match=r"more than max_bytes \(1,000"):
        Fetcher(LOCAL).get(Request(url=site.url("/list.txt"), shown="list", max_bytes=1000), tmp_path)
    assert len(site.requests("/list.txt")) == 1
    assert list(tmp_path.iterdir()) == []


def test_no_server_is_retried_then_fails_without_the_address(tmp_path: Path) -> None:
    with Publisher() as site:
        url = site.url("/list.txt?license_key=SECRET")
    with pytest.raises(FetchError) as failed:
        Fetcher(LOCAL, sleep=Sleeps()).get(Request(url=url, shown="https://example/{license_key}"), tmp_path)
    assert "no answer" in str(failed.value)
    assert "SECRET" not in str(failed.value)
    assert "{license_key}" in str(failed.value)


def test_credentials_go_to_the_first_address_only(site: Publisher, tmp_path: Path) -> None:
    site.publish("/download", b"", auth=("123", "s3cret"), redirect=site.url("/storage/file.zip", host="localhost"))
    site.publish("/storage/file.zip", BODY)
    fetched = Fetcher(LOCAL).get(Request(url=site.url("/download"), shown="dl", auth=("123", "s3cret")), tmp_path)
    assert fetched.path is not None
    assert fetched.path.read_bytes() == BODY
    assert site.requests("/download")[0].status == 302
    assert "Authorization" not in site.requests("/storage/file.zip")[0].headers
    with pytest.raises(FetchError, match="answered 401"):
        Fetcher(LOCAL).get(Request(url=site.url("/download"), shown="dl", auth=("123", "wrong")), tmp_path)


def test_https_only_refuses_plain_http(site: Publisher, tmp_path: Path) -> None:
    site.publish("/list.txt", BODY)
    with pytest.raises(FetchError, match="only https"):
        Fetcher(FetchPolicy(allow_loopback=True)).get(Request(url=site.url("/list.txt"), shown="list"), tmp_path)
    assert site.requests("/list.txt") == []


def test_redirects_are_followed_over_https_and_never_down_to_http(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    trusted = ssl.create_default_context(cafile=str(cert))
    fetcher = Fetcher(FetchPolicy(backoff=0.01, allow_loopback=True), tls=trusted)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    with Publisher(tls=(cert, key)) as secure, Publisher() as plain:
        secure.publish("/file", BODY)
        secure.publish("/moved", b"", redirect=secure.url("/file", host="localhost"))
        plain.publish("/file", BODY)
        secure.publish("/down", b"", redirect=plain.url("/file"))
        moved = fetcher.get(Request(url=secure.url("/moved"), shown="moved"), downloads)
        assert moved.path is not None
        assert moved.path.read_bytes() == BODY
        with pytest.raises(FetchError, match="redirected to a plain http address"):
            fetcher.get(Request(url=secure.url("/down"), shown="down"), downloads)
        with pytest.raises(FetchError, match="redirected to a plain http address"):
            Fetcher(LOCAL, tls=trusted).get(Request(url=secure.url("/down"), shown="down"), downloads)
        assert plain.requests("/file") == []
        with pytest.raises(FetchError, match="no answer"):  # a certificate nobody vouches for
            Fetcher(FetchPolicy(attempts=1, allow_loopback=True)).get(
                Request(url=secure.url("/file"), shown="file"), downloads
            )


def test_a_server_that_crawls_is_stopped_at_the_deadline(site: Publisher, tmp_path: Path) -> None:
    site.publish("/list.txt", BODY[:200], trickle=0.05)  # each byte well inside the read timeout
    started = time.monotonic()
    with pytest.raises(OutOfTime, match=r"^list: the check ran out of time while downloading"):
        Fetcher(LOCAL).get(Request(url=site.url("/list.txt"), shown="list"), tmp_path, deadline=started + 0.5)
    assert time.monotonic() - started < 2
    assert list(tmp_path.iterdir()) == []


def test_no_retry_starts_that_would_end_past_the_deadline(site: Publisher, tmp_path: Path) -> None:
    site.publish("/list.txt", BODY, failures=[(503, "30")])
    sleeps = Sleeps()
    with pytest.raises(FetchError, match="no time left to try again"):
        Fetcher(LOCAL, sleep=sleeps).get(
            Request(url=site.url("/list.txt"), shown="list"), tmp_path, deadline=time.monotonic() + 5
        )
    assert sleeps == []


def test_a_server_that_trickles_its_headers_is_stopped_at_the_deadline(site: Publisher, tmp_path: Path) -> None:
    # One header line every 0.2 s, each well inside the 5 s read timeout: 18 s of headers for a 1 s deadline
    site.publish("/list.txt", BODY, header_trickle=0.2)
    started = time.monotonic()
    with pytest.raises(OutOfTime, match=r"^list: the check ran out of time while waiting for the answer's status"):
        Fetcher(LOCAL).get(Request(url=site.url("/list.txt"), shown="list"), tmp_path, deadline=started + 1)
    assert time.monotonic() - started < 1.5
    assert list(tmp_path.iterdir()) == []


def test_a_publishers_reason_phrase_is_cut_short(site: Publisher, tmp_path: Path) -> None:
    site.publish("/list.txt", BODY, refuse=(404, "Not Found " + "x" * 60_000))
    with pytest.raises(FetchError) as refused:
        Fetcher(LOCAL).get(Request(url=site.url("/list.txt"), shown="list"), tmp_path)
    assert str(refused.value).startswith("list: the server answered 404 Not Found xxx")
    assert len(str(refused.value)) < 250


def test_only_short_validators_are_kept(site: Publisher, tmp_path: Path) -> None:
    site.publish("/list.txt", BODY, etag=False, modified=None, headers={"ETag": '"' + "e" * 5000 + '"'})
    fetched = Fetcher(LOCAL).get(Request(url=site.url("/list.txt"), shown="list"), tmp_path)
    assert (fetched.size, fetched.etag) == (len(BODY), None)  # kept in the table: a long one is not


def test_redirects_stop_after_the_policys_count(site: Publisher, tmp_path: Path) -> None:
    for hop in range(7):
        site.publish(f"/hop{hop}", b"", redirect=site.url(f"/hop{hop + 1}"))
    with pytest.raises(FetchError, match=r"^hop: more than 5 redirects"):
        Fetcher(LOCAL).get(Request(url=site.url("/hop0"), shown="hop"), tmp_path)
    assert [seen.path for seen in site.seen] == [f"/hop{hop}" for hop in range(6)]
