"""The one module that talks to AWS WAF: a dataset's IP sets, one address family each, at most ``set_size``
addresses a set.

The sets are named ``<prefix>-<dataset>-v4-<n>`` and ``-v6-<n>`` (``prefix``: ``SINK_PREFIX``, the stack's name;
a ``.`` of the dataset's name as ``_``, WAF names take letters, digits, ``_`` and ``-``), created when missing, and
emptied when a smaller version needs fewer (a set a rule references cannot be deleted); the sink's ``rule_group``
references the sets in use (``aws.waf_rule_groups``). ``UpdateIPSet`` replaces a
set's whole list and takes the ``LockToken`` its ``GetIPSet`` returned: a set changed between the two is read again
and the update tried again, at most ``lock_retries`` times. A set that already holds what it should is not written.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws import USER_AGENT
from fencepost.aws.waf_rule_groups import put_rule_group
from fencepost.core.sinks.plan import difference, split
from fencepost.core.sinks.sink_settings import WafSink
from fencepost.core.sinks.state import PushFailed
from fencepost.core.space.addresses import V4, V6

CLOUDFRONT_REGION: Final = "us-east-1"  # WAF's CLOUDFRONT scope is served from there alone
# AWS WAF takes one Create, Put or Update call a second per account and Region ("Quotas", Security Automations for
# AWS WAF): a push's writes are spaced so, and a throttled call is retried by the client.
WRITE_INTERVAL: Final = 1.0
_VERSIONS: Final = {V4: "IPV4", V6: "IPV6"}
_CONFLICT: Final = "WAFOptimisticLockException"


def make_waf_client(region: str | None = None) -> Any:
    config = Config(
        connect_timeout=2, read_timeout=30, retries={"max_attempts": 5, "mode": "standard"}, user_agent=USER_AGENT
    )
    return boto3.client("wafv2", region_name=region, config=config)


def failure(error: ClientError | BotoCoreError, refused: str) -> PushFailed:
    """An AWS call's error as a failed push: its code (``WAFLimitsExceededException``, ``ThrottlingException``,
    ``AccessDeniedException``, ...) and message; a call that got no answer as the exception's name."""
    if isinstance(error, BotoCoreError):
        return PushFailed(f"no answer: {error}", type(error).__name__)
    code = error.response.get("Error", {}).get("Code", "ClientError")
    return PushFailed(f"{refused}: {code}: {error.response.get('Error', {}).get('Message', '')}", code)


def set_name(prefix: str, dataset: str, family: int, number: int) -> str:
    return f"{prefix}-{dataset.replace('.', '_')}-v{family}-{number}"


@dataclass(frozen=True, slots=True)
class Pushed:
    """What a push left in the sink: the sets (names) it holds the version in, its entries, the entries changed."""

    sets: list[str]
    entries: int
    changed: int
    rule_group: str | None = None  # the rule group that references the sets (a WAF sink's ``rule_group``)


class Paced:
    """A WAF client whose create and update calls start at least ``interval`` seconds after the previous one ends."""

    def __init__(self, client: Any, interval: float) -> None:
        self.client, self.interval, self.last = client, interval, -interval

    def __getattr__(self, name: str) -> Any:
        call = getattr(self.client, name)
        if not name.startswith(("create_", "update_")):
            return call

        def paced(**request: Any) -> Any:
            wait = self.last + self.interval - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                return call(**request)
            finally:
                self.last = time.monotonic()

        return paced


class WafSets:
    """A dataset's IP sets, kept equal to its live version's networks. ``client(scope)`` makes the client for a
    scope (called at each push: cache it)."""

    def __init__(self, client: Callable[[str], Any], prefix: str, write_interval: float = WRITE_INTERVAL) -> None:
        self.client, self.prefix, self.write_interval = client, prefix, write_interval

    def push(self, dataset: str, sink: WafSink, networks: Mapping[int, list[str]]) -> Pushed:
        waf = Paced(self.client(sink.scope), self.write_interval)
        try:
            existing = self._existing(waf, sink.scope, dataset)
            used: list[str] = []
            entries = changed = 0
            for family, wanted in networks.items():
                sets = split(wanted, sink.set_size)
                if len(sets) > sink.max_sets:
                    raise PushFailed(
                        f"IPv{family}: {len(wanted):,} networks need {len(sets)} sets of {sink.set_size:,}; "
                        f"max_sets is {sink.max_sets}",
                        "TooManySets",
                    )
                for number, addresses in enumerate(sets, start=1):
                    name = set_name(self.prefix, dataset, family, number)
                    found = existing[name][0] if name in existing else None
                    changed += self._put(waf, sink, name, family=family, addresses=addresses, found=found)
                    used.append(name)
                    entries += len(addresses)
                for name, (found, _) in existing.items():
                    if _family_of(name) == family and _number_of(name) > len(sets):
                        changed += self._put(waf, sink, name, family=family, addresses=[], found=found)
            group = None
            if sink.rule_group is not None:
                group = f"{self.prefix}-{dataset.replace('.', '_')}"
                arns = {name: arn for name, (_, arn) in self._existing(waf, sink.scope, dataset).items()}
                changed += put_rule_group(waf, sink, group, [(name, arns[name]) for name in used])
        except (ClientError, BotoCoreError) as error:
            raise failure(error, "AWS WAF refused") from None
        return Pushed(used, entries, changed, group)

    def _existing(self, waf: Any, scope: str, dataset: str) -> dict[str, tuple[str, str]]:
        """The dataset's sets, by name: their ids and ARNs."""
        pattern = re.compile(re.escape(f"{self.prefix}-{dataset.replace('.', '_')}-v") + r"[46]-[1-9][0-9]*")
        found: dict[str, tuple[str, str]] = {}
        marker: str | None = None
        while True:
            page = waf.list_ip_sets(Scope=scope, Limit=100, **({"NextMarker": marker} if marker else {}))
            for summary in page.get("IPSets", []):
                if pattern.fullmatch(summary["Name"]):
                    found[summary["Name"]] = (summary["Id"], summary["ARN"])
            marker = page.get("NextMarker")
            if not marker or not page.get("IPSets"):
                return found

    @staticmethod
    def _put(waf: Any, sink: WafSink, name: str, *, family: int, addresses: list[str], found: str | None) -> int:
        """Make set ``name`` hold ``addresses``; the entries added and removed."""
        if found is None:
            if not addresses:
                return 0
            waf.create_ip_set(
                Name=name,
                Scope=sink.scope,
                IPAddressVersion=_VERSIONS[family],
                Addresses=addresses,
                Description="Written by Fencepost: a dataset's live version (docs/sinks.md)",
            )
            return len(addresses)
        for _ in range(sink.lock_retries + 1):
            held = waf.get_ip_set(Name=name, Scope=sink.scope, Id=found)
            change = difference(held["IPSet"]["Addresses"], addresses)
            if change.empty:
                return 0
            try:
                waf.update_ip_set(
                    Name=name, Scope=sink.scope, Id=found, Addresses=addresses, LockToken=held["LockToken"]
                )
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") != _CONFLICT:
                    raise
                continue  # changed since it was read: read it again
            return len(change.added) + len(change.removed)
        raise PushFailed(f"IP set {name} changed under every one of {sink.lock_retries + 1} updates", _CONFLICT)


def _family_of(name: str) -> int:
    return int(name.rsplit("-", 2)[-2][1:])


def _number_of(name: str) -> int:
    return int(name.rsplit("-", 1)[-1])
