"""The gates on real local components (DynamoDB Local, moto's S3 and SQS, the real fetch, loader and lookup handlers):
the issue's creeping feed, fed by a real HTTP server on this machine, is refused at each step even when the step
before was accepted once; and a live version whose pieces file is gone is no reason to let a build through."""

from __future__ import annotations

import gzip
import json

from fencepost.bootstrap.fetch_wiring import FetchFunction
from fencepost.core.storage.objects import pieces_key
from fencepost.handlers import admin
from tests.feeds import creeping_releases, networks
from tests.publisher import Publisher
from tests.support.sources import check
from tests.support.stacks import Stack


def _netset(networks: list[str]) -> bytes:
    return ("# a blocklist, FireHOL's layout\n" + "".join(f"{network}\n" for network in networks)).encode()


def _gate(stack: Stack) -> str | None:
    record = stack.dataset("creep")
    return record["load"]["diff"]["gate"] if record["status"] == "FAILED" else None


def _accept(stack: Stack) -> None:
    assert admin.main(["accept", "creep"]) == 0
    stack.drain()


def test_the_creeping_feed_is_refused_at_each_step_even_after_the_one_before_was_accepted(
    stack: Stack, fetch: FetchFunction
) -> None:
    releases = creeping_releases()
    with Publisher() as site:
        site.publish("/list.netset", _netset(releases[0]))
        stack.put("creep/_source.json", json.dumps({"url": site.url("/list.netset"), "every": "1h"}))
        assert check(fetch, stack) == {"creep": "CHANGED"}
        assert (stack.dataset("creep")["status"], stack.dataset("creep")["version"]) == ("READY", 1)
        # Step 1: twelve /8s and 2000::/5, 4.69% of IPv4: refused for what it adds to what the list covered
        site.publish("/list.netset", _netset(releases[1]))
        assert check(fetch, stack, dataset="creep") == {"creep": "CHANGED"}
        record = stack.dataset("creep")
        assert (_gate(stack), record["version"]) == ("max_added_percent", 1)
        assert record["load"]["diff"]["added_percent_addresses_ipv4"] == 201_326_592 / 12_800 * 100
        assert stack.get("/lookup", ip="25.1.2.3", dataset="creep")[0] == 404  # the live version keeps answering
        _accept(stack)  # a person lets it through, once
        assert stack.dataset("creep")["version"] == 3
        # Step 2: refused for its growth; without the growth gate, the window (both steps: 9.375%) refuses it
        site.publish("/list.netset", _netset(releases[2]))
        assert check(fetch, stack, dataset="creep") == {"creep": "CHANGED"}
        assert _gate(stack) == "max_added_percent"
        assert stack.dataset("creep")["load"]["diff"]["window_changed_percent_ipv4"] == 9.375
        stack.put("creep/_settings.json", json.dumps({"max_added_percent": None}))
        stack.drain()
        assert (_gate(stack), stack.dataset("creep")["version"]) == ("max_window_change_percent", 3)
        _accept(stack)
        # Step 3: reserved space refuses it on its own, naming the first reserved network it answers for
        stack.put("creep/_settings.json", json.dumps({"max_added_percent": None, "max_window_change_percent": None}))
        stack.drain()
        site.publish("/list.netset", _netset(releases[3]))
        assert check(fetch, stack, dataset="creep") == {"creep": "CHANGED"}
        record = stack.dataset("creep")
        assert _gate(stack) == "reserved_space"
        assert record["load"]["diff"]["reserved"] == '0.0.0.0/8 ("This network", RFC 791, Section 3.2)'
        assert record["load"]["problems"][0]["reason"].startswith('the objects answer for 0.0.0.0/8 ("This network"')
        assert stack.get("/lookup", ip="10.1.2.3", dataset="creep")[0] == 404


def test_a_build_whose_baseline_file_is_gone_is_compared_with_the_live_versions_items(stack: Stack) -> None:
    # A blocklist of 1,000 /20s, live; then its pieces file is gone (expired, or deleted)
    rows = networks("45.0.0.0/8", 20, 1000, "drop")
    stack.put("bl/list.csv", "".join(f"{start},{end},{label}\n" for start, end, label in rows))
    stack.drain()
    assert (stack.dataset("bl")["status"], stack.dataset("bl")["version"]) == ("READY", 1)
    kept = stack.s3.get_object(Bucket=stack.bucket, Key=pieces_key("bl", 1))["Body"].read()
    stack.delete(pieces_key("bl", 1))
    # When a file that removes 90% of it is uploaded
    stack.put("bl/list.csv", "".join(f"{start},{end},{label}\n" for start, end, label in rows[::10]))
    stack.drain()
    # Then it is refused on the real comparison, and the pieces file is there again, as its build wrote it
    record = stack.dataset("bl")
    assert (record["status"], record["version"], record["load"]["diff"]["gate"]) == ("FAILED", 1, "max_removed_percent")
    assert record["load"]["diff"]["note"] == "the pieces of version 1 were missing: made again from its items"
    assert record["load"]["problems"][0]["reason"].startswith("90% of the IPv4 pieces version 1 serves (900 of 1,000)")
    again = stack.s3.get_object(Bucket=stack.bucket, Key=pieces_key("bl", 1))["Body"].read()
    assert gzip.decompress(again) == gzip.decompress(kept)
    assert stack.get("/lookup", ip="45.0.16.1", dataset="bl")[0] == 200  # version 1 answers
