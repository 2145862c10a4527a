"""Every preset, fed by a release in its publisher's real layout (``tests.releases``) from a local server, through
the real fetch, loader and lookup handlers: the folder goes READY and answers as the release says. A publisher that
changed its layout (a member renamed, a column gone) fails its release, the folder untouched."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from fencepost.bootstrap.fetch_wiring import FetchFunction
from fencepost.core.sources.bindings import HOSTS_TAG
from fencepost.core.sources.presets import PRESETS
from local.dynamodb import local_client
from tests.publisher import Publisher
from tests.releases import KEYED_RELEASES, RELEASES, Release, local_path, maxmind_csv
from tests.support.sources import check
from tests.support.stacks import Stack

# Publishers whose lists answer for reserved space on purpose: FireHOL level 1 holds the bogons (0.0.0.0/8, 10.0.0.0/8,
# 127.0.0.0/8...); iptoasn's routing data holds what is announced from private space. Their folders say so.
RESERVED_BY_DESIGN = {"firehol-level1": "allow", "iptoasn-combined": "flag"}
# The lists without columns of their own, paired with the _settings.json docs/datasets.md gives them.
PAIRED_SETTINGS = {
    "fastly": {"constants": {"network_type": "cdn", "provider": "fastly"}},
    "cloudflare": {"constants": {"network_type": "cdn", "provider": "cloudflare"}},
    "tor-exits": {"constants": {"network_type": "tor", "provider": "tor"}},
    "x4bnet-vpn": {"constants": {"network_type": "vpn"}},
    "x4bnet-datacenter": {"constants": {"network_type": "hosting"}},
}


def _serve(site: Publisher, release: Release) -> None:
    for path, body in release.files.items():
        site.publish(path, body, auth=release.auth if path.endswith(".sha256") else None)
    for path, stored in release.redirects.items():  # the download: authenticated, then the storage host
        site.publish(path, b"", auth=release.auth, redirect=site.url(stored, host="localhost"))


def _document(name: str, site: Publisher, secret: str = "") -> dict[str, Any]:
    """The preset's source, its addresses on the local publisher: what ``{"preset": name}`` expands to."""
    document: dict[str, Any] = copy.deepcopy(PRESETS[name].source)
    files = document.get("files") or [document]
    for entry in files:
        for field in ("url", "sha256_url"):
            if field in entry:
                entry[field] = site.url(local_path(entry[field]))
    if PRESETS[name].params:
        document["params"] = {"account_id": "123456", "license_key": {"secret": secret}}
    return document


@pytest.mark.parametrize("name", sorted(set(PRESETS) - set(KEYED_RELEASES)))  # (keyed: test_keyed_presets)
def test_each_preset_loads_its_publishers_layout(stack: Stack, fetch: FetchFunction, name: str) -> None:
    release = RELEASES[name]()
    secret = _secret(stack, release.auth[1]) if release.auth is not None else ""
    with Publisher() as site:
        _serve(site, release)
        if name in RESERVED_BY_DESIGN:  # as docs/datasets.md says beside the presets
            stack.put(f"{name}/_settings.json", json.dumps({"reserved_space": RESERVED_BY_DESIGN[name]}))
        if name in PAIRED_SETTINGS:
            stack.put(f"{name}/_settings.json", json.dumps(PAIRED_SETTINGS[name]))
        stack.put(f"{name}/_source.json", json.dumps(_document(name, site, secret)))
        assert check(fetch, stack) == {name: "CHANGED"}, stack.get(f"/datasets/{name}")[1]["source"]["reason"]
        record = stack.dataset(name)
        assert record["status"] == "READY", record["load"]["problems"]
        assert all(o["key"].startswith(f"{name}/_fetched/") for o in record["objects"])
        ip, column, value = release.expected
        status, body = stack.get("/lookup", ip=ip, dataset=name)
        assert (status, body["data"][column]) == (200, value)


def test_a_publishers_changed_layout_fails_its_release(stack: Stack, fetch: FetchFunction) -> None:
    secret = _secret(stack, "test-licence-key")
    with Publisher() as site:
        _serve(site, maxmind_csv("Country"))
        stack.put("geo/_source.json", json.dumps(_document("geolite2-country-csv", site, secret)))
        assert check(fetch, stack) == {"geo": "CHANGED"}
        _serve(site, maxmind_csv("Country", places="Places"))  # its locations files renamed, checksum and all
        assert check(fetch, stack, dataset="geo") == {"geo": "FAILED"}
        status, shown = stack.get("/datasets/geo")
        assert "'GeoLite2-Country-Locations-en.csv' matches no member" in shown["source"]["reason"]
        assert (status, shown["status"], shown["version"]) == (200, "READY", 1)
        assert stack.get("/lookup", ip="1.0.0.1", dataset="geo")[1]["data"]["country_iso_code"] == "AU"


def _secret(stack: Stack, value: str) -> str:
    """A secret of this stack's own (the local Secrets Manager serves every test), bound by its tag to the local
    publisher's host (the presets' own, download.maxmind.com, is not here); its name."""
    name = f"maxmind-{stack.bucket}"
    local_client(stack.s3.meta.endpoint_url, "secretsmanager").create_secret(
        Name=name, SecretString=value, Tags=[{"Key": HOSTS_TAG, "Value": "127.0.0.1"}]
    )
    return name


def test_a_secret_without_its_hosts_tag_goes_only_to_the_presets_publisher(stack: Stack, fetch: FetchFunction) -> None:
    name = f"untagged-{stack.bucket}"
    local_client(stack.s3.meta.endpoint_url, "secretsmanager").create_secret(Name=name, SecretString="k3y")
    with Publisher() as site:
        _serve(site, maxmind_csv("Country"))
        stack.put("geo/_source.json", json.dumps(_document("geolite2-country-csv", site, name)))
        assert check(fetch, stack) == {"geo": "FAILED"}
        reason = stack.get("/datasets/geo")[1]["source"]["reason"]
        assert f"secret '{name}' may be sent only to download.maxmind.com (it has no fencepost:hosts tag" in reason
        assert site.seen == []
