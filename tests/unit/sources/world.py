"""A source check's world: a real publisher on this machine, the bucket's folders, the table's states and the
secret store in memory, and names under ``.example`` and ``.test`` that resolve to this machine."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from fencepost.downloads import Fetcher, FetchPolicy
from fencepost.downloads.destinations import Address
from fencepost.sources.check import Checker
from fencepost.sources.outcomes import CheckRules
from tests.fakes.sources import FakeSecrets, FakeSourceFolders, FakeSourceStates
from tests.publisher import Publisher, lines

RELEASE = b"".join(lines(300))
NEXT = b"".join(lines(310))


def here(host: str, port: int) -> list[Address]:
    """Names under .example and .test are this machine (the publisher's), others as the system resolves them."""
    if host.endswith((".example", ".test")):
        return [(socket.AF_INET, ("127.0.0.1", port))]
    return [(family, address) for family, _, _, _, address in socket.getaddrinfo(host, port)]


class World:
    def __init__(self, site: Publisher, tmp_path: Path, **rules: Any) -> None:
        self.site, self.now = site, 1_000_000
        self.folders, self.states, self.secrets = FakeSourceFolders(), FakeSourceStates(), FakeSecrets()
        policy = FetchPolicy(https_only=False, backoff=0.001, attempts=2, timeout=5, allow_loopback=True)
        fetcher = Fetcher(policy, sleep=lambda _: None, resolve=here)
        self.checker = Checker(
            folders=self.folders,
            states=self.states,
            secrets=self.secrets,
            downloads=fetcher,
            rules=CheckRules(**{"least_every": 1, "https_only": False, "max_bytes": 1 << 20, **rules}),
            clock=lambda: self.now,
            workdir=tmp_path,
        )

    def source(self, document: dict[str, Any], dataset: str = "drop") -> None:
        self.folders.objects[f"{dataset}/_source.json"] = json.dumps(document).encode()
