"""A folder's ``"sinks"`` setting (``_settings.json``): where its live version is pushed.

``{"waf": {...}, "prefix_list": {...}}``, either or both:

- ``waf``: AWS WAF IP sets. ``scope``: ``"REGIONAL"`` (default) or ``"CLOUDFRONT"``; ``set_size``: entries per set
  (1 to 10,000, WAF's limit; default 10,000); ``max_sets``: sets per address family at most (default 10; a version
  that needs more fails its push, recorded); the sets are created and named by the loader
  (``<prefix>-<dataset>-v4-1``, ``-v6-1``, ...). ``rule_group``: ``true``, or ``{"action": "BLOCK" | "ALLOW" |
  "COUNT", "capacity": n}``: a rule group ``<prefix>-<dataset>`` of one rule a set, each with the action (default
  ``BLOCK``), of ``capacity`` units (default twice ``max_sets``: fixed when WAF creates the group).
- ``prefix_list``: an EC2 managed prefix list the stack created or its context names. ``id``: ``pl-...``;
  ``resize``: its max entries may be raised to fit the version (default false: a version that does not fit fails its
  push, recorded).

Each may name ``where``: ``"<column>:<value>"``, as ``GET /ranges?where=``, to push only the ranges whose column
holds the value; and ``lock_retries``: how often an update that met a concurrent change is read and tried again
(default 5, at most 20). Sinks govern where a live version goes, not how it is built: no part of the settings digest.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from fencepost.core.versions.where_clause import Where, split_where

WAF_SET_LIMIT: Final = 10_000  # addresses an AWS WAF IP set holds at most
SCOPES: Final = ("REGIONAL", "CLOUDFRONT")
MAX_SETS: Final = 10  # default sets per address family
MOST_SETS: Final = 100  # WAF's default quota of IP sets per account and scope
LOCK_RETRIES: Final = 5
RULE_ACTIONS: Final = ("BLOCK", "ALLOW", "COUNT")
MOST_CAPACITY: Final = 5_000  # WAF capacity units a web ACL may hold at most
MOST_LOCK_RETRIES: Final = 20
_PREFIX_LIST_ID: Final = re.compile(r"pl-[0-9a-f]{8,17}")


@dataclass(frozen=True, slots=True)
class RuleGroup:
    """A rule group of one rule a set, each with ``action``; ``capacity``: its WAF capacity units (one a rule)."""

    action: str = "BLOCK"
    capacity: int = 2 * MAX_SETS


@dataclass(frozen=True, slots=True)
class WafSink:
    scope: str = "REGIONAL"
    set_size: int = WAF_SET_LIMIT
    max_sets: int = MAX_SETS
    where: Where | None = None
    lock_retries: int = LOCK_RETRIES
    rule_group: RuleGroup | None = None


@dataclass(frozen=True, slots=True)
class PrefixListSink:
    id: str
    resize: bool = False
    where: Where | None = None
    lock_retries: int = LOCK_RETRIES


@dataclass(frozen=True, slots=True)
class Sinks:
    waf: WafSink | None = None
    prefix_list: PrefixListSink | None = None

    @property
    def named(self) -> dict[str, WafSink | PrefixListSink]:
        """The sinks set, by name (``waf``, ``prefix_list``)."""
        found: dict[str, WafSink | PrefixListSink] = {}
        if self.waf is not None:
            found["waf"] = self.waf
        if self.prefix_list is not None:
            found["prefix_list"] = self.prefix_list
        return found


def parse_sinks(value: Any) -> Sinks:
    """The ``"sinks"`` setting; raises ``ValueError`` with a message that says what is wrong."""
    if value is None:
        return Sinks()
    if not isinstance(value, Mapping):
        raise ValueError('sinks must be an object, e.g. {"waf": {"scope": "REGIONAL"}}')
    unknown = sorted(set(value) - {"waf", "prefix_list"})
    if unknown:
        raise ValueError(f"sinks has unknown sinks {unknown}; known: ['prefix_list', 'waf']")
    waf = None if value.get("waf") is None else _waf(value["waf"])
    listed = None if value.get("prefix_list") is None else _prefix_list(value["prefix_list"])
    return Sinks(waf, listed)


def _waf(value: Any) -> WafSink:
    given = _object(value, "sinks.waf", {"scope", "set_size", "max_sets", "where", "lock_retries", "rule_group"})
    scope = given.get("scope", "REGIONAL")
    if scope not in SCOPES:
        raise ValueError(f"sinks.waf.scope must be one of {list(SCOPES)}, not {str(scope)[:40]!r}")
    max_sets = _whole(given.get("max_sets", MAX_SETS), "sinks.waf.max_sets", 1, MOST_SETS)
    return WafSink(
        scope=scope,
        set_size=_whole(given.get("set_size", WAF_SET_LIMIT), "sinks.waf.set_size", 1, WAF_SET_LIMIT),
        max_sets=max_sets,
        rule_group=None if given.get("rule_group") in (None, False) else _rule_group(given["rule_group"], max_sets),
        where=_where(given.get("where"), "sinks.waf.where"),
        lock_retries=_whole(given.get("lock_retries", LOCK_RETRIES), "sinks.waf.lock_retries", 0, MOST_LOCK_RETRIES),
    )


def _rule_group(value: Any, max_sets: int) -> RuleGroup:
    given = _object(value, "sinks.waf.rule_group", {"action", "capacity"})
    action = given.get("action", "BLOCK")
    if action not in RULE_ACTIONS:
        raise ValueError(f"sinks.waf.rule_group.action must be one of {list(RULE_ACTIONS)}, not {str(action)[:40]!r}")
    capacity = _whole(given.get("capacity", 2 * max_sets), "sinks.waf.rule_group.capacity", 1, MOST_CAPACITY)
    return RuleGroup(action, capacity)


def _prefix_list(value: Any) -> PrefixListSink:
    given = _object(value, "sinks.prefix_list", {"id", "resize", "where", "lock_retries"})
    identifier = given.get("id")
    if not isinstance(identifier, str) or not _PREFIX_LIST_ID.fullmatch(identifier):
        raise ValueError('sinks.prefix_list.id must name a managed prefix list, e.g. "pl-0123456789abcdef0"')
    resize = given.get("resize", False)
    if not isinstance(resize, bool):
        raise ValueError("sinks.prefix_list.resize must be true or false")
    retries = _whole(given.get("lock_retries", LOCK_RETRIES), "sinks.prefix_list.lock_retries", 0, MOST_LOCK_RETRIES)
    return PrefixListSink(identifier, resize, _where(given.get("where"), "sinks.prefix_list.where"), retries)


def _object(value: Any, name: str, known: set[str]) -> Mapping[str, Any]:
    if value is True:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"{name} must be an object (or true, for the defaults)")
    unknown = sorted(set(value) - known)
    if unknown:
        raise ValueError(f"{name} has unknown settings {unknown}; known: {sorted(known)}")
    return value


def _whole(value: Any, name: str, least: int, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise ValueError(f"{name} must be a whole number from {least:,} to {most:,}")
    return value


def _where(value: Any, name: str) -> Where | None:
    """``"<column>:<value>"``, split at the first colon, as ``GET /ranges?where=`` reads it."""
    if value is None:
        return None
    where = split_where(value)
    if where is None:
        raise ValueError(f'{name} must be "<column>:<value>", e.g. "country:AU"')
    return where
