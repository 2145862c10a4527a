"""The alarms' three shapes: any occurrence within five minutes, an occurrence that keeps coming back, or a heartbeat
that stops.

Every alarm of the stack is one of these; the stack sends them all (and their recoveries) to the alarm topic.
"""

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
    return sustained(scope, construct_id, metric=metric, description=description, periods=1, of=1)


def sustained(
    scope: Construct,
    construct_id: str,
    *,
    metric: cloudwatch.IMetric,
    description: str,
    periods: int,
    of: int,
) -> cloudwatch.Alarm:
    """Alarm when ``metric`` (aggregated over PERIOD) reaches 1 in ``periods`` of the last ``of`` periods.

    No data counts as a quiet period, so only occurrences that keep coming back raise it.
    """
    return cloudwatch.Alarm(
        scope,
        construct_id,
        alarm_description=description,
        metric=metric,
        threshold=1,
        evaluation_periods=of,
        datapoints_to_alarm=periods if periods != of else None,
        comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
    )


def silent(
    scope: Construct, construct_id: str, *, metric: cloudwatch.IMetric, description: str, periods: int
) -> cloudwatch.Alarm:
    """Alarm when ``metric`` (a count, aggregated over PERIOD) is below 1 in each of the last ``periods`` periods:
    no data counts as silence, so something that stops running alarms, however it stopped."""
    return cloudwatch.Alarm(
        scope,
        construct_id,
        alarm_description=description,
        metric=metric,
        threshold=1,
        evaluation_periods=periods,
        comparison_operator=cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        treat_missing_data=cloudwatch.TreatMissingData.BREACHING,
    )
