"""The alarms' one shape: any occurrence within five minutes is worth a look."""

from __future__ import annotations

from typing import Final

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

PERIOD: Final = cdk.Duration.minutes(5)


def any_in_period(
    scope: Construct, construct_id: str, *, metric: cloudwatch.IMetric, description: str
) -> cloudwatch.Alarm:
    """Alarm when ``metric`` (already aggregated over PERIOD) reaches 1; no data means all is well."""
    return cloudwatch.Alarm(
        scope,
        construct_id,
        alarm_description=description,
        metric=metric,
        threshold=1,
        evaluation_periods=1,
        comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
    )
