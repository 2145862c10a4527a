"""The loader's sinks wired (``loading.pushing``): the AWS WAF and EC2 clients, made when the first push needs them
(most loader invocations push nothing), and the step that pushes; and the admin's rollback asking for a push."""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from typing import Any

from fencepost.aws.dynamo import Tables
from fencepost.aws.prefix_lists import PrefixLists, make_ec2_client
from fencepost.aws.s3 import Bucket
from fencepost.aws.sqs import Queues, make_sqs_client
from fencepost.aws.waf_sets import CLOUDFRONT_REGION, WafSets, make_waf_client
from fencepost.core.events import ChangeEvents
from fencepost.loading.messages import Command, PushSinks, dump
from fencepost.loading.ports import Telemetry
from fencepost.loading.pushing import SinkPusher
from fencepost.settings import LoaderSettings


def _waf_client(scope: str) -> Any:
    return make_waf_client(CLOUDFRONT_REGION if scope == "CLOUDFRONT" else None)


def sink_pusher(
    settings: LoaderSettings, tables: Tables, bucket: Bucket, telemetry: Telemetry, events: ChangeEvents
) -> SinkPusher:
    return SinkPusher(
        datasets=tables.datasets,
        versions=tables.versions,
        folder=bucket,
        waf=WafSets(functools.cache(_waf_client), settings.sink_prefix),
        prefix_lists=PrefixLists(functools.cache(make_ec2_client)),
        telemetry=telemetry,
        clock=time.time,
        max_receives=settings.max_receives,
        retry_base=settings.retry_base,
        events=events,
    )


def tell_sinks(env: Mapping[str, str], dataset: str, version: int) -> bool:
    """Ask the loader (its control queue, ``CONTROL_QUEUE_URL``, when set) to push the dataset's live version to its
    folder's sinks, after a rollback or roll forward; whether it was asked."""
    url = env.get("CONTROL_QUEUE_URL", "").strip()
    if not url:
        return False
    Queues[Command](make_sqs_client(), control_url=url, data_url=url, encode=dump).send(PushSinks(dataset, version))
    return True
