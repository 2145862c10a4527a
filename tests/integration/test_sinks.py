"""Sinks on the local stack (DynamoDB Local; moto's server for S3, SQS, AWS WAF and EC2; the real loader, lookup and
admin handlers): a live version of 25,000 networks split into three IP sets, a second push that changes nothing, a
shrink the gates refuse that pushes nothing, a rollback that pushes the previous version back, a lock conflict read
again and retried, a quota error recorded, and a managed prefix list kept to the ranges ``where`` names."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

from fencepost.handlers.admin import main as admin
from fencepost.loading.messages import PushSinks
from fencepost.loading.pushing import SinkPusher
from local.dynamodb import local_client
from tests.support.stacks import Stack

NETWORKS = 25_000


def netset(count: int, *, comment: Callable[[int], str] | None = None) -> str:
    """``count`` /24 networks of 10.0.0.0/8, none touching another (every other /24)."""
    first = int(ipaddress.IPv4Address("10.0.0.0"))
    lines = []
    for n in range(count):
        tail = f" ; {comment(n)}" if comment else ""
        lines.append(f"{ipaddress.IPv4Address(first + (2 * n << 8))}/24{tail}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def sinks(stack: Stack, moto_server: str, monkeypatch: pytest.MonkeyPatch) -> SinkPusher:
    """The loader's push step, its WAF and EC2 clients on moto's server, its IP sets named after this test's stack."""
    monkeypatch.setenv("AWS_ENDPOINT_URL_WAFV2", moto_server)
    monkeypatch.setenv("AWS_ENDPOINT_URL_EC2", moto_server)
    pusher = stack.loader.sinks
    assert pusher is not None
    pusher.waf.prefix = stack.bucket  # type: ignore[attr-defined]
    return pusher


def waf(moto_server: str) -> Any:
    return local_client(moto_server, "wafv2")


def ip_sets(stack: Stack, moto_server: str) -> dict[str, dict[str, Any]]:
    """This stack's IP sets by name: their addresses and lock tokens."""
    client = waf(moto_server)
    found = {}
    for summary in client.list_ip_sets(Scope="REGIONAL", Limit=100)["IPSets"]:
        if summary["Name"].startswith(stack.bucket + "-"):
            held = client.get_ip_set(Name=summary["Name"], Scope="REGIONAL", Id=summary["Id"])
            found[summary["Name"]] = {"addresses": held["IPSet"]["Addresses"], "lock": held["LockToken"]}
    return found


def sizes(sets: dict[str, dict[str, Any]]) -> dict[str, int]:
    return {name.removeprefix(name.split("-blocks-")[0]): len(held["addresses"]) for name, held in sets.items()}


def loaded(stack: Stack, settings: dict[str, Any], count: int = NETWORKS) -> dict[str, dict[str, Any]]:
    """Folder ``blocks`` with ``settings`` and ``count`` networks, loaded; the IP sets then."""
    stack.put("blocks/_settings.json", json.dumps(settings))
    stack.put("blocks/list.netset", netset(count))
    stack.drain()
    return ip_sets(stack, stack.s3.meta.endpoint_url)


def push_again(stack: Stack, dataset: str) -> None:
    stack.loader.queues.send(PushSinks(dataset, 1))
    stack.drain()


@pytest.mark.usefixtures("sinks")
def test_25000_networks_are_three_ip_sets_and_a_second_push_changes_nothing(stack: Stack, moto_server: str) -> None:
    sets = loaded(stack, {"sinks": {"waf": True}})
    assert sizes(sets) == {"-blocks-v4-1": 10_000, "-blocks-v4-2": 10_000, "-blocks-v4-3": 5_000}
    assert sets[f"{stack.bucket}-blocks-v4-1"]["addresses"][:2] == ["10.0.0.0/24", "10.0.2.0/24"]
    (state,) = stack.dataset("blocks")["sinks"]
    assert state["sink"] == "waf"
    assert (state["version"], state["entries"], state["changed"], state["error"]) == (1, NETWORKS, NETWORKS, None)
    assert state["sets"] == [f"{stack.bucket}-blocks-v4-{n}" for n in (1, 2, 3)]

    push_again(stack, "blocks")
    assert {name: held["lock"] for name, held in ip_sets(stack, moto_server).items()} == {
        name: held["lock"] for name, held in sets.items()
    }
    assert stack.dataset("blocks")["sinks"][0]["changed"] == 0


@pytest.mark.usefixtures("sinks")
def test_a_shrink_the_gates_refuse_pushes_nothing(stack: Stack, moto_server: str) -> None:
    before = loaded(stack, {"sinks": {"waf": {"set_size": 400}}}, 1_000)  # three sets, as 25,000 make at 10,000
    stack.put("blocks/list.netset", netset(40))  # 96% of the ranges removed: past max_removed_percent
    stack.drain()
    record = stack.dataset("blocks")
    assert (record["version"], record["status"]) == (1, "FAILED")
    assert "max_removed_percent" in json.dumps(record["load"])
    assert ip_sets(stack, moto_server) == before
    assert record["sinks"][0]["version"] == 1


@pytest.mark.usefixtures("sinks")
def test_a_rollback_pushes_the_previous_version_back(
    stack: Stack, moto_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    loaded(stack, {"sinks": {"waf": {"set_size": 400}}, "max_removed_percent": None}, 1_000)
    stack.put("blocks/list.netset", netset(160))
    stack.drain()
    assert sizes(ip_sets(stack, moto_server)) == {"-blocks-v4-1": 160, "-blocks-v4-2": 0, "-blocks-v4-3": 0}
    assert stack.dataset("blocks")["sinks"][0]["sets"] == [f"{stack.bucket}-blocks-v4-1"]

    assert admin(["rollback", "blocks"]) == 0
    assert "its folder's sinks follow" in capsys.readouterr().out
    stack.drain()
    assert sizes(ip_sets(stack, moto_server)) == {"-blocks-v4-1": 400, "-blocks-v4-2": 400, "-blocks-v4-3": 200}
    state = stack.dataset("blocks")["sinks"][0]
    assert (state["version"], state["entries"]) == (1, 1_000)


class Racing:
    """A WAF client whose first update of each set meets another writer's update of the same set just before it."""

    def __init__(self, client: Any, rival: Any) -> None:
        self.client, self.rival = client, rival
        self.updates: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def update_ip_set(self, **request: Any) -> Any:
        self.updates.append(request["Name"])
        if self.updates.count(request["Name"]) == 1:
            held = self.rival.get_ip_set(Name=request["Name"], Scope=request["Scope"], Id=request["Id"])
            self.rival.update_ip_set(
                Name=request["Name"],
                Scope=request["Scope"],
                Id=request["Id"],
                Addresses=["192.0.2.0/24"],
                LockToken=held["LockToken"],
            )
        return self.client.update_ip_set(**request)


def test_a_set_changed_between_read_and_update_is_read_again_and_updated(
    stack: Stack, sinks: SinkPusher, moto_server: str
) -> None:
    stack.put("blocks/_settings.json", json.dumps({"sinks": {"waf": {"set_size": 400}}}))
    stack.put("blocks/list.netset", netset(1_000))
    stack.drain()
    name = f"{stack.bucket}-blocks-v4-3"
    client = waf(moto_server)
    summary = next(s for s in client.list_ip_sets(Scope="REGIONAL", Limit=100)["IPSets"] if s["Name"] == name)
    held = client.get_ip_set(Name=name, Scope="REGIONAL", Id=summary["Id"])
    client.update_ip_set(Name=name, Scope="REGIONAL", Id=summary["Id"], Addresses=[], LockToken=held["LockToken"])
    racing = Racing(waf(moto_server), waf(moto_server))
    sinks.waf.client = lambda _scope: racing  # type: ignore[attr-defined]

    push_again(stack, "blocks")
    assert racing.updates == [name, name]  # the first met WAFOptimisticLockException; read again, the second held
    assert len(ip_sets(stack, moto_server)[name]["addresses"]) == 200
    state = stack.dataset("blocks")["sinks"][0]
    assert (state["error"], state["changed"]) == (None, 201)  # its 200 added, and the other writer's one removed


class OverQuota:
    """A WAF client that refuses to create IP sets as AWS WAF does past the account's quota. (moto enforces no WAF
    quota: this thin wrapper raises the real ``WAFLimitsExceededException`` error; every other call is moto's.)"""

    def __init__(self, client: Any) -> None:
        self.client, self.refused = client, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def create_ip_set(self, **request: Any) -> Any:
        self.refused += 1
        raise ClientError(
            {"Error": {"Code": "WAFLimitsExceededException", "Message": "You exceeded your limit for IPSets."}},
            "CreateIPSet",
        )


def test_a_quota_error_is_recorded_retried_and_cleared_by_a_later_push(
    stack: Stack, sinks: SinkPusher, moto_server: str
) -> None:
    quota = OverQuota(waf(moto_server))
    sinks.waf.client = lambda _scope: quota  # type: ignore[attr-defined]
    stack.put("blocks/_settings.json", json.dumps({"sinks": {"waf": True}}))
    stack.put("blocks/list.netset", netset(300))
    stack.drain()
    record = stack.dataset("blocks")
    assert (record["status"], record["version"]) == ("READY", 1)  # lookups serve the version whatever the sink does
    (state,) = record["sinks"]
    assert state["version"] is None
    assert state["error"].startswith("AWS WAF refused: WAFLimitsExceededException")
    assert state["failed_at"] is not None
    assert quota.refused == 3  # every delivery (MAX_RECEIVES=3 here), each after a backoff

    sinks.waf.client = lambda _scope: waf(moto_server)  # type: ignore[attr-defined]
    push_again(stack, "blocks")
    state = stack.dataset("blocks")["sinks"][0]
    assert (state["version"], state["entries"], state["error"]) == (1, 300, None)


@pytest.mark.usefixtures("sinks")
def test_a_prefix_list_holds_the_ranges_where_names_and_grows_when_allowed(stack: Stack, moto_server: str) -> None:
    ec2 = local_client(moto_server, "ec2")
    listed = ec2.create_managed_prefix_list(PrefixListName=stack.bucket, MaxEntries=100, AddressFamily="IPv4")
    identifier = listed["PrefixList"]["PrefixListId"]
    sink = {"id": identifier, "where": "comment:block"}
    stack.put("blocks/_settings.json", json.dumps({"sinks": {"prefix_list": sink}}))
    stack.put("blocks/list.netset", netset(400, comment=lambda n: "block" if n % 4 else "watch"))
    stack.drain()
    (state,) = stack.dataset("blocks")["sinks"]
    assert state["version"] is None
    assert "holds at most 100 entries; the version has 300 networks" in state["error"]
    assert ec2.get_managed_prefix_list_entries(PrefixListId=identifier)["Entries"] == []

    stack.put("blocks/_settings.json", json.dumps({"sinks": {"prefix_list": sink | {"resize": True}}}))
    stack.drain()
    entries = [
        e["Cidr"]
        for e in ec2.get_paginator("get_managed_prefix_list_entries")
        .paginate(PrefixListId=identifier)
        .search("Entries")
    ]
    assert len(entries) == 300
    assert "10.0.0.0/24" not in entries  # the first is "watch"
    assert "10.0.2.0/24" in entries
    state = stack.dataset("blocks")["sinks"][0]
    assert (state["sink"], state["entries"], state["sets"], state["error"]) == ("prefix_list", 300, [identifier], None)


@pytest.mark.usefixtures("sinks")
def test_a_rule_group_references_the_sets_in_use_and_follows_them(stack: Stack, moto_server: str) -> None:
    settings = {"sinks": {"waf": {"set_size": 400, "rule_group": {"action": "COUNT"}}}, "max_removed_percent": None}
    loaded(stack, settings, 1_000)
    client, group = waf(moto_server), f"{stack.bucket}-blocks"

    def rules() -> tuple[list[tuple[str, str, list[str]]], str]:
        (summary,) = [
            g for g in client.list_rule_groups(Scope="REGIONAL", Limit=100)["RuleGroups"] if g["Name"] == group
        ]
        held = client.get_rule_group(Name=group, Scope="REGIONAL", Id=summary["Id"])
        arns = {s["ARN"]: s["Name"] for s in client.list_ip_sets(Scope="REGIONAL", Limit=100)["IPSets"]}
        found = [
            (r["Name"], arns[r["Statement"]["IPSetReferenceStatement"]["ARN"]], list(r["Action"]))
            for r in sorted(held["RuleGroup"]["Rules"], key=lambda rule: rule["Priority"])
        ]
        return found, held["LockToken"]

    names = [f"{stack.bucket}-blocks-v4-{n}" for n in (1, 2, 3)]
    first, lock = rules()
    assert first == [(name, name, ["Count"]) for name in names]
    assert stack.dataset("blocks")["sinks"][0]["rule_group"] == group

    push_again(stack, "blocks")
    assert rules() == (first, lock)  # nothing written

    stack.put("blocks/list.netset", netset(300))
    stack.drain()
    assert rules()[0] == [(names[0], names[0], ["Count"])]
