"""Sinks in the stack: the loader's role may create, read and update only the WAF IP sets and rule groups named
after the stack, and read and modify only the managed prefix lists the context names (the exact statements, with
and without ``sinkPrefixLists``); the loader names its IP sets after the stack; a failed push alarms."""

from __future__ import annotations

from typing import Any

import pytest

from infra.context import SettingsError
from infra.settings import DeploySettings
from tests.support.synthesis import environment, granted, on
from tests.synth import Synth

PREFIX_LIST = "pl-0123456789abcdef0"
WAF_WRITES = ("wafv2:CreateIPSet", "wafv2:GetIPSet", "wafv2:UpdateIPSet")
PREFIX_LIST_WRITES = ("ec2:GetManagedPrefixListEntries", "ec2:ModifyManagedPrefixList")


def _arn(*parts: Any) -> dict[str, Any]:
    return {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, *parts]]}


ACCOUNT = {"Ref": "AWS::AccountId"}
REGIONAL = _arn(":wafv2:", {"Ref": "AWS::Region"}, ":", ACCOUNT, ":regional/ipset/Fencepost-*/*")
GLOBAL = _arn(":wafv2:us-east-1:", ACCOUNT, ":global/ipset/Fencepost-*/*")  # CLOUDFRONT scope
GROUPS = (
    _arn(":wafv2:", {"Ref": "AWS::Region"}, ":", ACCOUNT, ":regional/rulegroup/Fencepost-*/*"),
    _arn(":wafv2:us-east-1:", ACCOUNT, ":global/rulegroup/Fencepost-*/*"),
)
# A rule group's create and update, on the groups and on the sets its rules reference; its read on the groups
RULE_GROUPS = set.union(
    *(on(arn, "wafv2:CreateRuleGroup", "wafv2:UpdateRuleGroup") for arn in (*GROUPS, REGIONAL, GLOBAL)),
    *(on(arn, "wafv2:GetRuleGroup") for arn in GROUPS),
)
LISTED = _arn(":ec2:", {"Ref": "AWS::Region"}, ":", ACCOUNT, f":prefix-list/{PREFIX_LIST}")


def _sinks(synth: Synth) -> set[tuple[str, str]]:
    """The loader's WAF and EC2 permissions."""
    return {
        (action, resource)
        for action, resource in granted(synth, "loader_role")
        if action.startswith(("wafv2:", "ec2:"))
    }


def test_the_loader_may_change_only_the_ip_sets_named_after_the_stack_and_no_prefix_list(default: Synth) -> None:
    assert _sinks(default) == (
        on(REGIONAL, *WAF_WRITES)
        | on(GLOBAL, *WAF_WRITES)
        | RULE_GROUPS
        | on("*", "wafv2:ListIPSets", "wafv2:ListRuleGroups")  # neither takes a resource-level permission
    )
    assert environment(default, "loader_function")["SINK_PREFIX"] == "Fencepost"


def test_prefix_lists_named_at_deploy_are_the_only_ones_it_may_modify(synthesize: Any) -> None:
    chosen = synthesize(sinkPrefixLists=f" {PREFIX_LIST} ")
    assert _sinks(chosen) == (
        on(REGIONAL, *WAF_WRITES)
        | on(GLOBAL, *WAF_WRITES)
        | RULE_GROUPS
        | on("*", "wafv2:ListIPSets", "wafv2:ListRuleGroups", "ec2:DescribeManagedPrefixLists")
        | on(LISTED, *PREFIX_LIST_WRITES)
    )


def test_a_failed_push_alarms(default: Synth) -> None:
    (alarm,) = [
        alarm["Properties"]
        for alarm in default.of_type("AWS::CloudWatch::Alarm").values()
        if alarm["Properties"]["MetricName"] == "SinkFailed"
    ]
    assert alarm["Namespace"] == "Fencepost"
    assert alarm["Dimensions"] == [{"Name": "service", "Value": "fencepost-loader"}]
    assert (alarm["Threshold"], alarm["Statistic"]) == (1, "Sum")


def test_a_prefix_list_context_that_is_not_ids_is_refused() -> None:
    with pytest.raises(SettingsError, match="sinkPrefixLists must be managed prefix list ids"):
        DeploySettings.from_context({"sinkPrefixLists": "my-list"}.get)
