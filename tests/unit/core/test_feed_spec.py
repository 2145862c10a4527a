"""``_source.json``: what it accepts, what each mistake says, and the presets it expands."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fencepost.core.sources.presets import PRESETS
from fencepost.core.sources.spec import FeedFile, Secret, Source, parse_every, parse_source
from fencepost.core.storage.objects import FolderError


def parse(document: Any, *, least: int = 300, https_only: bool = True) -> Source:
    return parse_source(json.dumps(document).encode(), "geo/_source.json", least_every=least, https_only=https_only)


def test_one_url_is_one_file_named_after_its_path() -> None:
    source = parse({"url": "https://example.org/lists/drop.txt", "every": "6h"})
    assert source.files == (FeedFile(url="https://example.org/lists/drop.txt", name="drop.txt"),)
    assert source.every == 6 * 3600
    assert not source.paused
    assert source.max_bytes is None
    assert source.digest
    assert source.digest != parse({"url": "https://example.org/lists/drop.txt"}).digest


@pytest.mark.parametrize(
    ("text", "seconds"), [("5m", 300), ("1h", 3600), ("1d", 86400), (" 90 s ", 90), ("30d", 2592000)]
)
def test_every_is_a_number_and_a_unit(text: str, seconds: int) -> None:
    assert parse_every(text, "w", 1) == seconds


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"url": "https://e.org/a", "every": "4m"}, r"every is at least 300 s here \('4m' is 240 s\)"),
        ({"url": "https://e.org/a", "every": "31d"}, "every is at most 30d"),
        ({"url": "https://e.org/a", "every": 60}, "every must be a number and a unit"),
        ({"url": "http://e.org/a"}, "url must be https://"),
        ({"url": "ftp://e.org/a"}, "url must be an https:// address"),
        ({"url": "https://me:pw@e.org/a"}, "never holds a user or password"),
        ({"every": "1d"}, "url is missing"),
        ({"url": "https://e.org/a", "files": []}, "url \\(one file\\) or files \\(several\\), not both"),
        ({"files": [{"url": "https://e.org/a"}, {"url": "https://f.org/a"}]}, "two files are saved under one name"),
        (
            {"url": "https://e.org/?key={license_key}", "name": "a.txt"},
            r"names \['license_key'\], which params does not give",
        ),
        ({"url": "https://e.org/{a-b}", "name": "a.txt"}, "placeholders .* must be plain names"),
        ({"url": "https://e.org/{v:d}", "name": "a.txt", "params": {"v": "1"}}, "must be plain names"),
        ({"url": "https://e.org/{v!r}", "name": "a.txt", "params": {"v": "1"}}, "must be plain names"),
        ({"url": "https://e.org:abc/x.txt"}, "url must be an https:// address"),
        ({"url": "https://e.org/caf\u00e9.txt"}, "ASCII, no spaces"),
        ({"url": "https://e.org/a b.txt"}, "ASCII, no spaces"),
        ({"url": "https://e.org/x", "params": {"license_key": "abc123"}}, "license_key is a credential"),
        ({"url": "https://e.org/x", "basic_auth": ["user"]}, "basic_auth names two params"),
        ({"url": "https://e.org/x.zip", "unpack": "rar"}, r"unpack is one of \['zip', 'tar.gz'\]"),
        ({"url": "https://e.org/x.zip", "unpack": "zip"}, "unpack needs members"),
        ({"url": "https://e.org/x", "members": ["*.csv"]}, "give unpack too"),
        ({"url": "https://e.org/x", "name": "_hidden"}, "name \\(the object's name\\)"),
        ({"url": "https://e.org/x", "max_bytes": 0}, "max_bytes must be a whole number"),
        ({"url": "https://e.org/x", "paused": "yes"}, "paused must be true or false"),
        ({"url": "https://e.org/x", "evry": "1d"}, r"unknown settings \['evry'\]"),
        ({"preset": "geolite2-country-csv"}, r"needs \['account_id', 'license_key'\]"),
        ({"preset": "nope"}, "preset 'nope' is unknown"),
        ({"preset": "firehol-level1", "url": "https://e.org/x"}, "a preset names its own files"),
        ([], "must hold a JSON object"),
    ],
)
def test_each_mistake_names_the_setting(document: Any, message: str) -> None:
    with pytest.raises(FolderError, match=message):
        parse(document)


def test_not_json_is_refused_by_name() -> None:
    with pytest.raises(FolderError, match=r"geo/_source\.json is not valid JSON"):
        parse_source(b"{url:", "geo/_source.json", least_every=1, https_only=True)


def test_plain_http_and_short_intervals_where_allowed() -> None:
    source = parse({"url": "http://127.0.0.1:8080/drop.txt", "every": "2s"}, least=1, https_only=False)
    assert source.every == 2
    assert source.files[0].url.startswith("http://")


def test_secrets_are_references_and_placeholders_are_filled_from_params() -> None:
    source = parse(
        {
            "files": [{"url": "https://e.org/db?edition=x&key={license_key}", "name": "db.tar.gz"}],
            "params": {"license_key": {"secret": "maxmind", "key": "license"}, "edition": "x"},
        }
    )
    assert source.params == {"license_key": Secret("maxmind", "license"), "edition": "x"}
    assert source.shown_url() == "https://e.org/db?..."  # a query may hold a key: never shown


def test_a_maxmind_preset_is_one_line() -> None:
    source = parse(
        {"preset": "geolite2-city-csv", "account_id": "123456", "license_key": {"secret": "maxmind"}, "every": "12h"}
    )
    (release,) = source.files
    assert release.url == "https://download.maxmind.com/geoip/databases/GeoLite2-City-CSV/download?suffix=zip"
    assert release.sha256_url is not None
    assert release.sha256_url.endswith("suffix=zip.sha256")
    assert release.unpack == "zip"
    assert release.members == (
        "GeoLite2-City-Blocks-IPv4.csv",
        "GeoLite2-City-Blocks-IPv6.csv",
        "GeoLite2-City-Locations-en.csv",
    )
    assert source.basic_auth == ("account_id", "license_key")
    assert source.every == 12 * 3600
    assert source.params == {"account_id": "123456", "license_key": Secret("maxmind")}
    assert source.preset == "geolite2-city-csv"
    with pytest.raises(FolderError, match="license_key is a credential"):
        parse({"preset": "geolite2-city-csv", "account_id": "1", "license_key": "plain-text-key"})


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_parses_on_aws_terms(name: str) -> None:
    preset = PRESETS[name]
    given = {param: {"secret": "s"} if "key" in param else "1" for param in preset.params}
    source = parse({"preset": name, **given})
    assert all(feed.url.startswith("https://") for feed in source.files)
    assert source.every >= 3600
    assert preset.cited
    assert len({feed.name for feed in source.files}) == len(source.files)


def test_the_five_registries_in_one_dataset() -> None:
    source = parse({"preset": "rir-delegated"})
    assert [feed.name for feed in source.files] == [
        f"delegated-{rir}-extended-latest" for rir in ("arin", "ripencc", "apnic", "lacnic", "afrinic")
    ]


@pytest.mark.parametrize(
    "url",
    [
        "https://e.org/db?license_key=L1TERAL&edition={edition}",  # names a param it does not give
        "https://e.org/db?license_key=L1TERAL&x={a-b}",  # a placeholder that is not a plain name
        "https://e.org/db?license_key=L1TERAL&x={",  # an unmatched brace
    ],
)
def test_a_refusal_names_the_address_without_its_query(url: str) -> None:
    with pytest.raises(FolderError) as refused:
        parse({"url": url, "name": "db.csv"})
    assert "L1TERAL" not in str(refused.value)
    assert "https://e.org/db?..." in str(refused.value)


@pytest.mark.parametrize(
    "query",
    [
        "license_key=L1TERAL",
        "key=L1TERAL",
        "apikey=L1TERAL",
        "api-key=L1TERAL",
        "access_token=L1TERAL",
        "token=L1TERAL",
        "password=L1TERAL",
        "passwd=L1TERAL",
        "secret=L1TERAL",
        "client_secret=L1TERAL",
        "X-Amz-Signature=L1TERAL",
        "X-Amz-Credential=L1TERAL",
        "sig=L1TERAL",
        "auth=L1TERAL",
        "license_key={edition}",  # filled from a text param: as good as text
    ],
)
def test_a_credential_in_the_query_must_come_from_a_secret(query: str) -> None:
    url = f"https://e.org/db?edition=x&{query}"
    with pytest.raises(FolderError, match=r"in its query as text, and it is a credential: write .*=\{.*\} and give"):
        parse({"url": url, "name": "db.csv", "params": {"edition": "GeoLite2"}})
    with pytest.raises(FolderError, match="it is a credential"):
        parse({"url": "https://e.org/db", "name": "db.csv", "sha256_url": url, "params": {"edition": "GeoLite2"}})


@pytest.mark.parametrize(
    "query", ["license_key={license_key}", "license_key=", "edition=GeoLite2&suffix=zip", "date=2026-01-01"]
)
def test_a_query_without_a_literal_credential_is_accepted(query: str) -> None:
    source = parse(
        {"url": f"https://e.org/db?{query}", "name": "db.csv", "params": {"license_key": {"secret": "fencepost/k"}}}
    )
    assert source.files[0].url.endswith(query)
