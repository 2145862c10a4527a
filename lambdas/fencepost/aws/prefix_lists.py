"""The one module that talks to EC2 for sinks: a managed prefix list kept equal to a dataset's live version.

A prefix list holds one address family (its ``AddressFamily``). ``ModifyManagedPrefixList`` adds and removes at most
100 entries a call and takes the list's current version: each call makes a new version, and one made by someone else
between the read and the call fails it (``IncorrectState``, or a version mismatch), which reads the list again and
goes on from what it holds, at most ``lock_retries`` times. A version with more networks than the list's
``MaxEntries`` fails its push unless the sink may ``resize``: then the list's size is raised first, in a call of its
own (EC2 changes entries and size in separate calls). A list that already holds what it should is not written.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Final

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws import USER_AGENT
from fencepost.aws.waf_sets import Pushed, failure
from fencepost.core.sinks.plan import difference
from fencepost.core.sinks.sink_settings import PrefixListSink
from fencepost.core.sinks.state import PushFailed
from fencepost.core.space.addresses import V4, V6

_FAMILIES: Final = {"IPv4": V4, "IPv6": V6}
_CONFLICTS: Final = ("IncorrectState", "PrefixListVersionMismatch", "InvalidPrefixListModification")
_SETTLE_SECONDS: Final = 0.5  # between polls of a list still applying a change (state ``modify-in-progress``)
_SETTLE_POLLS: Final = 60


def make_ec2_client() -> Any:
    config = Config(
        connect_timeout=2, read_timeout=30, retries={"max_attempts": 5, "mode": "standard"}, user_agent=USER_AGENT
    )
    return boto3.client("ec2", config=config)


class PrefixLists:
    """Managed prefix lists named by folders' settings. ``client()`` makes the EC2 client (cache it)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def push(self, dataset: str, sink: PrefixListSink, networks: Mapping[int, list[str]]) -> Pushed:
        del dataset  # the list is named by the setting
        ec2 = self.client()
        try:
            return self._push(ec2, sink, networks)
        except (ClientError, BotoCoreError) as error:
            raise failure(error, f"EC2 refused a change of {sink.id}") from None

    def _push(self, ec2: Any, sink: PrefixListSink, networks: Mapping[int, list[str]]) -> Pushed:
        described = self._settled(ec2, sink.id)
        wanted = networks.get(_FAMILIES.get(described["AddressFamily"], V4), [])
        if len(wanted) > described["MaxEntries"]:
            if not sink.resize:
                raise PushFailed(
                    f"{sink.id} holds at most {described['MaxEntries']:,} entries; the version has {len(wanted):,} "
                    'networks (let it grow with "resize": true, or push fewer with "where")',
                    "MaxEntriesExceeded",
                )
            ec2.modify_managed_prefix_list(PrefixListId=sink.id, MaxEntries=len(wanted))
        changed = 0
        for _ in range(sink.lock_retries + 1):
            held = self._entries(ec2, sink.id)
            change = difference(held, wanted)
            if change.empty:
                return Pushed([sink.id], len(wanted), changed)
            try:
                for added, removed in change.batches():
                    ec2.modify_managed_prefix_list(
                        PrefixListId=sink.id,
                        CurrentVersion=self._settled(ec2, sink.id)["Version"],
                        AddEntries=[{"Cidr": cidr, "Description": "Fencepost"} for cidr in added],
                        RemoveEntries=[{"Cidr": cidr} for cidr in removed],
                    )
                    changed += len(added) + len(removed)
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") not in _CONFLICTS:
                    raise
                continue  # changed since it was read: read it again, and go on from what it holds
            return Pushed([sink.id], len(wanted), changed)
        raise PushFailed(f"{sink.id} changed under every one of {sink.lock_retries + 1} updates", "IncorrectState")

    @staticmethod
    def _entries(ec2: Any, identifier: str) -> list[str]:
        found: list[str] = []
        token: str | None = None
        while True:
            page = ec2.get_managed_prefix_list_entries(
                PrefixListId=identifier, MaxResults=100, **({"NextToken": token} if token else {})
            )
            found.extend(entry["Cidr"] for entry in page.get("Entries", []))
            token = page.get("NextToken")
            if not token:
                return found

    @staticmethod
    def _settled(ec2: Any, identifier: str) -> dict[str, Any]:
        """The list as described once no change of it is in progress."""
        for _ in range(_SETTLE_POLLS):
            lists = ec2.describe_managed_prefix_lists(PrefixListIds=[identifier])["PrefixLists"]
            if not lists:
                raise PushFailed(f"no managed prefix list {identifier}", "InvalidPrefixListID.NotFound")
            described: dict[str, Any] = lists[0]
            if not str(described.get("State", "")).endswith("in-progress"):
                return described
            time.sleep(_SETTLE_SECONDS)
        raise PushFailed(f"{identifier} stayed busy with a change for {_SETTLE_POLLS * _SETTLE_SECONDS:.0f} s", "Busy")
