"""cdk-nag (3.x) on every synth, and the one way this app acknowledges a finding: with a written reason.

cdk-nag 3 reports through CDK's policy-validation plugins: an unacknowledged finding fails the synth and the report
lands in ``cdk.out/validation-report.json``. ``NagSuppressions`` is gone; findings are acknowledged with
``Validations.of(construct).acknowledge(...)`` under the id ``AwsSolutions::<rule>[<finding>]``.
"""

from __future__ import annotations

from typing import Final

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks
from constructs import IConstruct

PACK: Final = "AwsSolutions"


def add_checks(app: cdk.App) -> None:
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app, verbose=True))


def acknowledge(scope: IConstruct, rule: str, reason: str) -> None:
    """Accept one finding (``rule`` as reported, e.g. ``AwsSolutions-IAM5[Resource::*]``) on ``scope`` and below."""
    cdk.Validations.of(scope).acknowledge(cdk.Acknowledgment(id=f"{PACK}::{rule}", reason=reason))


def arn_token(resource: IConstruct) -> str:
    """How cdk-nag names a resource's ARN in a finding: ``<LogicalId.Arn>`` (a resource defined in this app)."""
    element = resource.node.default_child
    if not isinstance(element, cdk.CfnElement):
        raise TypeError(f"{resource.node.path} must be defined in this app, not imported")
    return f"<{cdk.Stack.of(resource).get_logical_id(element)}.Arn>"
