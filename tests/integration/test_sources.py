"""A folder that names its source, through the real fetch, loader and lookup handlers on DynamoDB Local and a local
S3, fed by a real HTTP server on this machine: it goes READY without an upload, refreshes when the release changes,
does nothing when it does not, and a cut-short, tampered or 90%-shrunk release never replaces the live version."""

from __future__ import annotations

import hashlib
import json
import time

from fencepost.bootstrap.fetch_wiring import FetchFunction
from fencepost.handlers import admin
from tests.publisher import Publisher
from tests.support import LambdaContext
from tests.support.sources import address, check, drop_list
from tests.support.stacks import Stack


def found(stack: Stack, k: int) -> str | None:
    status, body = stack.get("/lookup", ip=address(k), dataset="drop")
    return body["data"]["comment"] if status == 200 else None


def test_a_source_fed_folder_refreshes_itself_and_refuses_bad_releases(stack: Stack, fetch: FetchFunction) -> None:
    with Publisher() as site:
        site.publish("/drop.txt", drop_list(range(1000)))
        stack.put("drop/_source.json", json.dumps({"url": site.url("/drop.txt"), "every": "1h"}))
        # Ready without an upload
        assert check(fetch, stack) == {"drop": "CHANGED"}
        record = stack.dataset("drop")
        assert (record["status"], record["version"], record["ranges"]) == ("READY", 1, 1000)
        assert found(stack, 3) == "SBL100003"
        # Nothing new: a 304, nothing written, nothing built
        assert check(fetch, stack) == {}  # not due for an hour
        assert check(fetch, stack, dataset="drop") == {"drop": "UNCHANGED"}
        assert site.requests("/drop.txt")[-1].status == 304
        listed = stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix="drop/_fetched/")["Contents"]
        assert [entry["Key"] for entry in listed] == ["drop/_fetched/_release.json", "drop/_fetched/drop.txt"]
        assert stack.dataset("drop")["load"]["version"] == 1  # no build started
        # A new release
        site.publish("/drop.txt", drop_list(range(1010)))
        assert check(fetch, stack, dataset="drop") == {"drop": "CHANGED"}
        assert (stack.dataset("drop")["version"], found(stack, 1005)) == (2, "SBL101005")
        # A release cut short of its length is fetched again, then refused: the folder is untouched
        site.publish("/drop.txt", drop_list(range(1020)), cut_at=4000)
        assert check(fetch, stack, dataset="drop") == {"drop": "FAILED"}
        assert (stack.dataset("drop")["version"], found(stack, 1015)) == (2, None)
        # A release whose checksum is not the publisher's is refused
        release = drop_list(range(1020))
        site.publish("/drop.txt", release[:-40] + b"1.2.3.0/24 ; SBL999999\n; EOF\n")
        site.publish("/drop.txt.sha256", f"{hashlib.sha256(release).hexdigest()}  drop.txt\n".encode())
        stack.put(
            "drop/_source.json",
            json.dumps({"url": site.url("/drop.txt"), "sha256_url": site.url("/drop.txt.sha256"), "every": "1h"}),
        )
        assert check(fetch, stack) == {"drop": "FAILED"}
        status, shown = stack.get("/datasets/drop")
        assert status == 200
        assert "tampered" in shown["source"]["reason"]
        assert (shown["version"], found(stack, 1)) == (2, "SBL100001")
        # A release that drops 90% of the list is fetched, then refused by the folder's gates: version 2 answers
        site.publish("/drop.txt", drop_list(range(101)))
        site.publish("/drop.txt.sha256", f"{hashlib.sha256(drop_list(range(101))).hexdigest()}  drop.txt\n".encode())
        assert check(fetch, stack, dataset="drop") == {"drop": "CHANGED"}
        record = stack.dataset("drop")
        assert (record["status"], record["version"]) == ("FAILED", 2)
        assert record["load"]["diff"]["gate"] == "max_removed_percent"
        assert (found(stack, 500), found(stack, 50)) == ("SBL100500", "SBL100050")
        source = stack.get("/datasets/drop")[1]["source"]
        assert (source["outcome"], source["checks"], source["unchanged"], source["failures_in_a_row"]) == (
            "CHANGED",
            6,
            1,
            0,
        )
        assert source["url"].endswith("/drop.txt")


def _release(site: Publisher, networks: range) -> None:
    site.publish("/drop.txt", drop_list(networks))


def test_a_refused_release_is_accepted_once_and_only_the_one_refused(stack: Stack, fetch: FetchFunction) -> None:
    with Publisher() as site:
        _release(site, range(1000))
        stack.put("drop/_source.json", json.dumps({"url": site.url("/drop.txt"), "every": "1h"}))
        check(fetch, stack)
        _release(site, range(101))  # 90% gone: refused by the unattended gates
        assert check(fetch, stack, dataset="drop") == {"drop": "CHANGED"}
        assert (stack.dataset("drop")["status"], stack.dataset("drop")["version"]) == ("FAILED", 1)
        # A person looked at the refused build's diff and accepts it, once: it goes live, saying so
        assert admin.main(["accept", "drop"]) == 0
        stack.drain()
        record = stack.dataset("drop")
        assert (record["status"], record["version"], record["ranges"]) == ("READY", 3, 101)  # build 2 was refused
        assert "accepted once" in record["load"]["diff"]["note"]
        assert (found(stack, 500), found(stack, 50)) == (None, "SBL100050")
        assert admin.main(["accept", "drop"]) == 1  # nothing refused now: nothing to accept
        # The next shrink meets the gates again
        _release(site, range(5))
        assert check(fetch, stack, dataset="drop") == {"drop": "CHANGED"}
        assert (stack.dataset("drop")["status"], stack.dataset("drop")["version"]) == ("FAILED", 3)
        assert admin.main(["accept", "drop", "2"]) == 1  # not the build refused last
        # A release written since the refusal (nobody looked at it) is never let through by accepting the refusal
        stack.put("drop/_fetched/drop.txt", drop_list(range(3)))
        assert admin.main(["accept", "drop"]) == 1
        stack.drain()
        assert (stack.dataset("drop")["status"], stack.dataset("drop")["version"]) == ("FAILED", 3)


def test_one_round_at_a_time_by_a_lease_in_the_table(stack: Stack, fetch: FetchFunction) -> None:
    # The scheduler may start a round while one is under way (rounds of up to 14 minutes every 5, at-least-once
    # invocations): a lease item in the #sources partition, taken by a conditional write, lets one run
    lease = fetch.checker.states  # the table's #sources partition, on DynamoDB Local
    with Publisher() as site:
        site.publish("/drop.txt", drop_list(range(10)))
        stack.put("drop/_source.json", json.dumps({"url": site.url("/drop.txt"), "every": "1s"}))
        now = int(time.time() * 1000)
        assert lease.take_round("a round under way", now, now + 60_000)
        assert not lease.take_round("another", now + 1000, now + 61_000)
        skipped = fetch.handler({}, LambdaContext())
        assert skipped["checked"] == []
        assert skipped["skipped"] == "another round of the sources is under way: this one checks nothing"
        assert site.seen == []
        lease.end_round("another")  # not its lease: still held
        assert not lease.take_round("another", now + 2000, now + 62_000)
        lease.end_round("a round under way")
        assert check(fetch, stack) == {"drop": "CHANGED"}
        # A lease left by a round that was killed holds until it expires, then the next round takes it
        assert lease.take_round("killed", now, now + 60_000)
        assert check(fetch, stack, dataset="drop") == {"drop": "UNCHANGED"}  # a check on demand is no round
        assert lease.take_round("next", now + 60_001, now + 120_000)
        # The lease item is no source: the listings show the dataset's source alone
        assert list(lease.source_states()) == ["drop"]
        status, listed = stack.get("/datasets")
        assert status == 200
        assert [entry["name"] for entry in listed["datasets"]] == ["drop"]
