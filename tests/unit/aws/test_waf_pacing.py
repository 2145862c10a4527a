"""A WAF client's create and update calls are spaced by the interval (AWS WAF takes one a second per account and
Region); reads are not."""

from __future__ import annotations

import time
from typing import Any

from fencepost.aws.waf_sets import Paced


class Client:
    def __init__(self) -> None:
        self.calls: list[tuple[str, float]] = []

    def __getattr__(self, name: str) -> Any:
        return lambda **_: self.calls.append((name, time.monotonic()))


def test_writes_are_spaced_and_reads_are_not() -> None:
    client = Client()
    paced = Paced(client, 0.2)
    paced.create_ip_set(Name="a")
    paced.get_ip_set(Name="a")
    paced.update_ip_set(Name="a")
    paced.list_ip_sets()
    paced.update_rule_group(Name="g")
    names = [name for name, _ in client.calls]
    assert names == ["create_ip_set", "get_ip_set", "update_ip_set", "list_ip_sets", "update_rule_group"]
    at = dict(client.calls)
    assert at["update_ip_set"] - at["create_ip_set"] >= 0.2
    assert at["update_rule_group"] - at["update_ip_set"] >= 0.2
    assert at["get_ip_set"] - at["create_ip_set"] < 0.1
