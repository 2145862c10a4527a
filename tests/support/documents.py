"""A cloud's JSON document as its publisher may minify it: one line, however long."""

from __future__ import annotations

import json


def minified(prefixes: int) -> bytes:
    """AWS's ip-ranges.json, minified (one line, no newline at its end), with ``prefixes`` IPv4 prefixes."""
    entries = [
        {
            "ip_prefix": f"10.{i // 256}.{i % 256}.0/24",
            "region": "eu-west-1",
            "service": "EC2",
            "network_border_group": "eu-west-1",
        }
        for i in range(prefixes)
    ]
    document = {"syncToken": "1", "createDate": "2026-11-28-03-13-04", "prefixes": entries, "ipv6_prefixes": []}
    return json.dumps(document, separators=(",", ":")).encode()
