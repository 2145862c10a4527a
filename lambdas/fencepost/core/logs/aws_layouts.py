"""The layouts of the AWS logs the enrichment reads, by name, and the names of a line's fields past its layout's names.

``alb`` (Application Load Balancer access logs), ``cloudfront`` (CloudFront standard logs, legacy), ``vpc-flow`` (VPC
flow logs as text) and ``s3-access`` (S3 server access logs): see each module for its source and its choices.
"""

from __future__ import annotations

from collections.abc import Sequence

from fencepost.core.logs import alb, cloudfront, s3_access, vpc_flow
from fencepost.core.logs.layout import LogLayout

LAYOUTS: dict[str, LogLayout] = {
    layout.name: layout for layout in (alb.LAYOUT, cloudfront.LAYOUT, vpc_flow.LAYOUT, s3_access.LAYOUT)
}


def field_names(names: Sequence[str], count: int) -> tuple[str, ...]:
    """The names of a line's ``count`` fields: ``names`` as far as they go, then ``field_<n>`` for the field at 1-based
    position n (AWS adds fields at the end of ALB and S3 lines: a reader names them so until ``names`` has them)."""
    return tuple(names[:count]) + tuple(f"field_{n}" for n in range(len(names) + 1, count + 1))
