"""The loader and lookup functions' S3 calls, answered as AWS answers them under the synthesized template's exact
policies (``tests/iam``): each function talks to its own front, which refuses what its role may not do and answers a
read of a missing object 403 when the role may not list the bucket. A load, a second version, its diff, a diff
between versions, a reverse lookup and an export from its first request to its download all pass; without the
lookup role's ``s3:ListBucket`` the first export request is the 503 it was. What the functions read is never under
a prefix the bucket's lifecycle rules expire, load reports apart (read back by the load that writes them)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fencepost.core.storage.job_keys import JOBS_PREFIX
from fencepost.core.storage.objects import REPORTS_PREFIX, changes_key, export_key, index_key, pieces_key, values_key
from fencepost.loading.messages import ExportVersion, dump
from infra.athena import RESULTS_PREFIX as ATHENA_RESULTS
from tests.iam.front import PolicyFront
from tests.iam.policy import Permissions, role_permissions
from tests.support.stacks import Stack
from tests.support.synthesis import Synthesize
from tests.synth import Synth

ROWS = "start,end,country\n1.0.0.0,1.0.0.255,AU\n1.0.1.0,1.0.3.255,CN\n2001:db8::,2001:db8::ffff,AU\n"
CHANGED = "start,end,country\n1.0.0.0,1.0.0.255,AU\n1.0.1.0,1.0.3.255,JP\n2001:db8::,2001:db8::ffff,AU\n"


@pytest.fixture(scope="module")
def template(synthesize: Synthesize) -> Synth:
    return synthesize()


def _permissions(template: Synth, role: str, bucket: str) -> Permissions:
    return role_permissions(template.template, template.ids[role], {template.ids["bucket"]: bucket})


@pytest.fixture
def fronts(stack: Stack, template: Synth, moto_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The loader's and the lookup's S3 clients, each made against its own role's front."""
    loader = PolicyFront(moto_server, _permissions(template, "loader_role", stack.bucket))
    lookup = PolicyFront(moto_server, _permissions(template, "lookup_role", stack.bucket))
    with loader, lookup:
        monkeypatch.setenv("AWS_ENDPOINT_URL_S3", loader.endpoint)
        # made now, as the loader's first use would
        assert stack.loader.bucket.client.meta.endpoint_url == loader.endpoint
        monkeypatch.setenv("AWS_ENDPOINT_URL_S3", lookup.endpoint)  # the lookup makes its client on first use
        yield loader, lookup


def _export(stack: Stack) -> tuple[int, dict[str, Any]]:
    return stack.get("/datasets/geo/export", format="csv")


def test_every_call_of_a_load_its_diffs_a_reverse_lookup_and_an_export_is_one_the_roles_allow(
    stack: Stack, fronts: tuple[PolicyFront, PolicyFront], template: Synth
) -> None:
    loader, lookup = fronts
    stack.put("geo/_settings.json", json.dumps({"index": ["country"]}))
    stack.put("geo/ranges.csv", ROWS)
    stack.drain()
    stack.put("geo/ranges.csv", CHANGED)
    stack.drain()
    assert (stack.dataset("geo")["status"], stack.dataset("geo")["version"]) == ("READY", 2)
    status, diff = stack.get("/datasets/geo/diff")
    assert (status, [c["change"] for c in diff["changes"]]) == (200, ["changed"])
    status, between = stack.get("/datasets/geo/diff", **{"from": "1", "to": "2"})
    assert (status, between["changes"][0]["data"]) == (200, {"country": "JP"})
    status, where = stack.get("/ranges", dataset="geo", where="country:AU")
    assert (status, len(where["ranges"])) == (200, 2), where
    # An export from its first request (nothing written yet: a 404 only because the role may list the bucket)
    assert _export(stack)[0] == 202
    stack.drain()
    status, ready = _export(stack)
    assert status == 303, ready
    with urllib.request.urlopen(ready["url"], timeout=30) as answer:  # the link goes through the lookup's front
        assert answer.read().decode().splitlines()[2] == "1.0.1.0,1.0.3.255,JP"
    assert (loader.refused, lookup.refused) == ([], [])
    # Nothing either function reads is expired by the bucket, but the load reports the loader reads back as it
    # writes them (each reader copes with a report gone: tests/unit/loading/test_accept_reports.py), and enrichment
    # jobs, read while they run (hours) and expired 30 days on (a job gone answers 404 UNKNOWN_JOB:
    # tests/unit/http/test_job_statuses.py); and Athena's query results, which no function reads
    expiring = _expiring_prefixes(template)
    assert expiring == [ATHENA_RESULTS, JOBS_PREFIX, REPORTS_PREFIX]
    read = set(loader.read + lookup.read)
    assert {pieces_key("geo", 1), changes_key("geo", 2), index_key("geo", 2, 0), values_key("geo", 2, 0)} <= read
    assert sorted(k for k in read if k.startswith(tuple(expiring)) and not _a_report(k)) == []


def test_an_export_asked_for_ten_times_asks_the_loader_once_and_is_written_once(
    stack: Stack, fronts: tuple[PolicyFront, PolicyFront]
) -> None:
    loader, lookup = fronts
    stack.put("geo/ranges.csv", ROWS)
    stack.drain()
    assert [_export(stack)[0] for _ in range(10)] == [202] * 10
    attributes = stack.sqs.get_queue_attributes(QueueUrl=stack.queues.data.url, AttributeNames=["All"])["Attributes"]
    assert attributes["ApproximateNumberOfMessages"] == "1"
    # SQS delivers at least once: the same request delivered three times writes the export once
    for _ in range(2):
        stack.sqs.send_message(QueueUrl=stack.queues.data.url, MessageBody=dump(ExportVersion("geo", 1, "csv")))
    stack.drain()
    assert loader.written.count(export_key("geo", 1, "csv")) == 1
    assert [_export(stack)[0] for _ in range(3)] == [303] * 3
    assert (loader.refused, lookup.refused) == ([], [])


def test_kept_files_of_versions_built_before_kept_existed_are_read_where_they_were_kept(
    stack: Stack, fronts: tuple[PolicyFront, PolicyFront]
) -> None:
    loader, lookup = fronts
    stack.put("geo/_settings.json", json.dumps({"index": ["country"]}))
    stack.put("geo/ranges.csv", ROWS)
    stack.drain()
    for key in (pieces_key("geo", 1), index_key("geo", 1, 0), values_key("geo", 1, 0)):
        body = stack.s3.get_object(Bucket=stack.bucket, Key=key)["Body"].read()
        stack.put(key.replace("_kept/", REPORTS_PREFIX, 1), body)
        stack.delete(key)
    status, where = stack.get("/ranges", dataset="geo", where="country:CN")
    assert (status, [r["start"] for r in where["ranges"]]) == (200, ["1.0.1.0"])
    # The next build compares with the pieces kept there (a change, not a first version)
    stack.put("geo/ranges.csv", CHANGED)
    stack.drain()
    assert stack.dataset("geo")["load"]["diff"]["baseline"] == 1
    assert (loader.refused, lookup.refused) == ([], [])


def test_a_live_versions_missing_pieces_are_made_again_from_the_table_under_the_loaders_policy(
    stack: Stack, fronts: tuple[PolicyFront, PolicyFront]
) -> None:
    loader, lookup = fronts
    stack.put("geo/ranges.csv", ROWS)
    stack.drain()
    stack.delete(pieces_key("geo", 1))  # a missing object: a 404, the loader's role may list the bucket
    stack.put("geo/ranges.csv", CHANGED)
    stack.drain()
    diff = stack.dataset("geo")["load"]["diff"]
    assert (diff["baseline"], diff["changed"], diff["note"]) == (
        1,
        1,
        "the pieces of version 1 were missing: made again from its items",
    )
    assert pieces_key("geo", 1) in loader.written
    assert (loader.refused, lookup.refused) == ([], [])


def test_without_list_bucket_the_first_export_request_is_refused_as_it_was(
    stack: Stack, template: Synth, moto_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    granted = _permissions(template, "lookup_role", stack.bucket)
    without = Permissions(tuple(s for s in granted.statements if "s3:ListBucket" not in s.actions))
    stack.put("geo/ranges.csv", ROWS)
    stack.drain()
    with PolicyFront(moto_server, without) as front:
        monkeypatch.setenv("AWS_ENDPOINT_URL_S3", front.endpoint)
        status, body = _export(stack)
    assert (status, body["error"]["code"]) == (503, "UNAVAILABLE"), body
    assert front.refused
    assert "(missing, and no s3:ListBucket)" in front.refused[0]


def _expiring_prefixes(template: Synth) -> list[str]:
    bucket = template.resource("bucket")["Properties"]
    rules = bucket["LifecycleConfiguration"]["Rules"]
    return sorted(rule.get("Prefix", "") for rule in rules if "ExpirationInDays" in rule or "ExpirationDate" in rule)


def _a_report(key: str) -> bool:
    name = Path(key).name
    return key.startswith(REPORTS_PREFIX) and name.endswith(".json") and name.removesuffix(".json").isdigit()
