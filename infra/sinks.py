"""Sinks (``docs/sinks.md``): what the loader may change to push folders' live versions, and the alarm of a push
that fails.

The loader's role may create, read and update only the WAF IP sets and rule groups named after the stack
(``SINK_PREFIX``, set here to the stack's name: ``<stack>-<dataset>-v4-1``, ...), in the stack's region
(``REGIONAL``) and in us-east-1 (``CLOUDFRONT``), and read and modify only the managed prefix lists the context names
(``-c sinkPrefixLists=pl-a,pl-b``; none: no EC2 permission at all). Three actions support no resource-level
permission, so they are granted on ``*``, all read-only: ``wafv2:ListIPSets`` and ``wafv2:ListRuleGroups`` (a
scope's sets and groups, listed to find a dataset's) and ``ec2:DescribeManagedPrefixLists`` (a list's version, size
and state). A rule group's create and update are authorized on the group and on the IP sets its rules reference.
"""

from __future__ import annotations

from typing import Final

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra import nag
from infra.alarms import any_in_period
from infra.functions import own_metric
from infra.loader import METRICS_SERVICE

CLOUDFRONT_REGION: Final = "us-east-1"  # WAF's CLOUDFRONT scope (its IP sets are "global" in their ARNs)


class Sinks(Construct):
    def __init__(
        self, scope: Construct, construct_id: str, *, loader: lambda_.Function, prefix_lists: tuple[str, ...]
    ) -> None:
        super().__init__(scope, construct_id)
        stack = cdk.Stack.of(self)
        prefix = stack.stack_name
        loader.add_environment("SINK_PREFIX", prefix)
        waf = f"arn:{stack.partition}:wafv2"
        ip_sets, groups = (
            [
                f"{waf}:{stack.region}:{stack.account}:regional/{kind}/{prefix}-*/*",
                f"{waf}:{CLOUDFRONT_REGION}:{stack.account}:global/{kind}/{prefix}-*/*",
            ]
            for kind in ("ipset", "rulegroup")
        )
        loader.add_to_role_policy(
            iam.PolicyStatement(actions=["wafv2:CreateIPSet", "wafv2:GetIPSet", "wafv2:UpdateIPSet"], resources=ip_sets)
        )
        # A rule group's rules reference the sets: its create and update are authorized on both
        actions = ["wafv2:CreateRuleGroup", "wafv2:UpdateRuleGroup"]
        loader.add_to_role_policy(iam.PolicyStatement(actions=actions, resources=[*groups, *ip_sets]))
        loader.add_to_role_policy(iam.PolicyStatement(actions=["wafv2:GetRuleGroup"], resources=groups))
        loader.add_to_role_policy(
            iam.PolicyStatement(actions=["wafv2:ListIPSets", "wafv2:ListRuleGroups"], resources=["*"])
        )
        if prefix_lists:
            lists = [
                f"arn:{stack.partition}:ec2:{stack.region}:{stack.account}:prefix-list/{id_}" for id_ in prefix_lists
            ]
            actions = ["ec2:GetManagedPrefixListEntries", "ec2:ModifyManagedPrefixList"]
            loader.add_to_role_policy(iam.PolicyStatement(actions=actions, resources=lists))
            loader.add_to_role_policy(iam.PolicyStatement(actions=["ec2:DescribeManagedPrefixLists"], resources=["*"]))
        role = loader.role
        assert role is not None
        nag.acknowledge(
            role,
            "AwsSolutions-IAM5[Resource::*]",
            "wafv2:ListIPSets, wafv2:ListRuleGroups and ec2:DescribeManagedPrefixLists support no resource-level "
            "permission; all three only read.",
        )
        for kind in ("ipset", "rulegroup"):
            arn = "arn:<AWS::Partition>:wafv2:{}:<AWS::AccountId>:{}/" + kind + "/" + prefix + "-*/*"
            for named in (arn.format("<AWS::Region>", "regional"), arn.format(CLOUDFRONT_REGION, "global")):
                nag.acknowledge(
                    role,
                    f"AwsSolutions-IAM5[Resource::{named}]",
                    "The loader creates and updates the WAF IP sets and rule groups of folders' sinks, named after "
                    "the stack; no other.",
                )
        self.alarms = [
            any_in_period(
                self,
                "SinkFailedAlarm",
                description=(
                    "A push of a dataset's live version to a sink (WAF IP sets, a managed prefix list) failed: a "
                    "quota, throttling, a permission, or a list too small. GET /datasets/{name} shows its error; "
                    "lookups are unaffected. The push is retried with backoff; fix the cause, then roll the dataset "
                    "back and forward, or change its _settings.json, to push again."
                ),
                metric=own_metric(METRICS_SERVICE, "SinkFailed", "Sum"),
            )
        ]
