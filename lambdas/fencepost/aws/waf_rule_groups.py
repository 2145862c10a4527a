"""A dataset's AWS WAF rule group (a WAF sink's ``rule_group``): one rule for each IP set the live version is in, an
``IPSetReferenceStatement`` with the sink's action, named ``<prefix>-<dataset>`` like the sets. A web ACL references
the group once, and follows the sets however many a version needs.

Its capacity is fixed when it is created (WAF cannot change it): one unit a rule, so ``capacity`` must cover the most
sets the sink may use. ``UpdateRuleGroup`` replaces the rules whole and takes the ``LockToken`` of the
``GetRuleGroup`` before it, read again and tried again on a conflict, as the sets are; a group that already holds
those rules is not written.
"""

from __future__ import annotations

from typing import Any, Final

from botocore.exceptions import ClientError

from fencepost.core.sinks.sink_settings import WafSink
from fencepost.core.sinks.state import PushFailed

_CONFLICT: Final = "WAFOptimisticLockException"
_ACTIONS: Final = {"BLOCK": "Block", "ALLOW": "Allow", "COUNT": "Count"}


def _visibility(name: str) -> dict[str, Any]:
    return {"SampledRequestsEnabled": True, "CloudWatchMetricsEnabled": True, "MetricName": name}


def _rules(sink: WafSink, sets: list[tuple[str, str]]) -> list[dict[str, Any]]:
    assert sink.rule_group is not None
    action: dict[str, Any] = {_ACTIONS[sink.rule_group.action]: {}}
    return [
        {
            "Name": name,
            "Priority": priority,
            "Statement": {"IPSetReferenceStatement": {"ARN": arn}},
            "Action": action,
            "VisibilityConfig": _visibility(name),
        }
        for priority, (name, arn) in enumerate(sets)
    ]


def _shape(rules: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What decides whether a group holds the rules: their names, sets and actions, in order."""
    return [
        (
            r.get("Name"),
            r.get("Statement", {}).get("IPSetReferenceStatement", {}).get("ARN"),
            sorted(r.get("Action", {})),
        )
        for r in sorted(rules, key=lambda rule: rule.get("Priority", 0))
    ]


def _found(waf: Any, scope: str, name: str) -> str | None:
    """The id of the group named ``name`` in ``scope``, if there is one."""
    marker: str | None = None
    while True:
        page = waf.list_rule_groups(Scope=scope, Limit=100, **({"NextMarker": marker} if marker else {}))
        for summary in page.get("RuleGroups", []):
            if summary["Name"] == name:
                return str(summary["Id"])
        marker = page.get("NextMarker")
        if not marker or not page.get("RuleGroups"):
            return None


def put_rule_group(waf: Any, sink: WafSink, name: str, sets: list[tuple[str, str]]) -> int:
    """Make group ``name`` hold one rule for each of ``sets`` (name, ARN); the rules written (0: it held them)."""
    assert sink.rule_group is not None
    rules = _rules(sink, sets)
    if len(rules) > sink.rule_group.capacity:
        raise PushFailed(
            f"rule group {name}: {len(rules)} sets need {len(rules)} capacity units; its capacity is "
            f"{sink.rule_group.capacity}",
            "RuleGroupCapacity",
        )
    found = _found(waf, sink.scope, name)
    if found is None:
        waf.create_rule_group(
            Name=name,
            Scope=sink.scope,
            Capacity=sink.rule_group.capacity,
            Rules=rules,
            VisibilityConfig=_visibility(name),
            Description="Written by Fencepost: a dataset's IP sets (docs/sinks.md)",
        )
        return len(rules)
    for _ in range(sink.lock_retries + 1):
        held = waf.get_rule_group(Name=name, Scope=sink.scope, Id=found)
        if _shape(held["RuleGroup"].get("Rules") or []) == _shape(rules):
            return 0
        try:
            waf.update_rule_group(
                Name=name,
                Scope=sink.scope,
                Id=found,
                Rules=rules,
                VisibilityConfig=_visibility(name),
                LockToken=held["LockToken"],
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != _CONFLICT:
                raise
            continue  # changed since it was read: read it again
        return len(rules)
    raise PushFailed(f"rule group {name} changed under every one of {sink.lock_retries + 1} updates", _CONFLICT)
