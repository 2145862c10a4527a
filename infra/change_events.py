"""Change events (``docs/events.md``): the functions that announce each change of a dataset may put events on the
account's default EventBridge bus, and nothing else of EventBridge; and, when asked (``-c refusedEmail=...``), the
example rule: every "Dataset build refused" event of this stack's source, e-mailed through an SNS topic.

``events:PutEvents`` on ``arn:<partition>:events:<region>:<account>:event-bus/default`` exactly: the loader (a
version live, a build failed or refused, a sink failed) and the fetch function (a dataset stale, a source failing).
Neither statement is there when the stack turns events off (``-c changeEvents=false``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import aws_cdk as cdk
from aws_cdk import aws_events as events
from aws_cdk import aws_iam as iam
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from fencepost.core.events.kinds import BUILD_REFUSED
from infra.settings import DeploySettings

DEFAULT_BUS: Final = "default"


def default_bus_arn(scope: Construct) -> str:
    return cdk.Stack.of(scope).format_arn(service="events", resource="event-bus", resource_name=DEFAULT_BUS)


class ChangeEvents(Construct):
    def __init__(
        self, scope: Construct, construct_id: str, *, settings: DeploySettings, announcers: Sequence[iam.IGrantable]
    ) -> None:
        super().__init__(scope, construct_id)
        self.source = str(settings.loader["events_source"])
        self.enabled = bool(settings.loader["events"])
        if self.enabled:
            for announcer in announcers:
                announcer.grant_principal.add_to_principal_policy(
                    iam.PolicyStatement(actions=["events:PutEvents"], resources=[default_bus_arn(self)])
                )
        self.refused_rule = None if settings.refused_email is None else self._refused_rule(settings.refused_email)

    def _refused_rule(self, email: str) -> events.Rule:
        """The example rule: "Dataset build refused" of this stack's source, to an e-mail through a TLS-only topic
        that only this rule may publish to."""
        topic = sns.Topic(self, "RefusedTopic", display_name="Fencepost refused builds", enforce_ssl=True)
        topic.add_subscription(subscriptions.EmailSubscription(email))
        rule = events.Rule(
            self,
            "RefusedRule",
            description="Fencepost: a gate refused a build (docs/events.md), e-mailed",
            event_pattern=events.EventPattern(source=[self.source], detail_type=[BUILD_REFUSED.detail_type]),
        )
        # The target written by hand: CDK's SnsTopic target would let all of EventBridge publish, not this rule alone.
        cfn = rule.node.default_child
        assert isinstance(cfn, events.CfnRule)
        cfn.add_property_override("Targets", [{"Arn": topic.topic_arn, "Id": "RefusedTopic"}])
        topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="RefusedRulePublish",
                actions=["sns:Publish"],
                principals=[iam.ServicePrincipal("events.amazonaws.com")],
                resources=[topic.topic_arn],
                conditions={"ArnEquals": {"aws:SourceArn": rule.rule_arn}},
            )
        )
        return rule
