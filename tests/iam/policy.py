"""A function's IAM permissions as the synthesized template grants them, evaluated as AWS evaluates an identity
policy: allowed only by an ``Allow`` statement whose actions and resources match (``*`` and ``?`` wildcards, case
blind for actions), refused by any matching ``Deny``; nothing else grants anything.

The template's references are resolved with the names the test gives: the bucket's ``Ref`` is its name and its
``Arn`` ``arn:aws:s3:::<name>``; any other resource resolves to a name of its own that no S3 ARN can match. A statement
with a ``Condition`` is refused outright (the evaluator does not read conditions, and must not guess).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


class PolicyError(ValueError):
    """A policy this evaluator cannot read faithfully."""


@dataclass(frozen=True, slots=True)
class Statement:
    effect: str
    actions: tuple[str, ...]
    resources: tuple[str, ...]

    def matches(self, action: str, resource: str) -> bool:
        return any(_like(action.lower(), pattern.lower()) for pattern in self.actions) and any(
            _like(resource, pattern) for pattern in self.resources
        )


@dataclass(frozen=True, slots=True)
class Permissions:
    """What one role may do."""

    statements: tuple[Statement, ...]

    def allows(self, action: str, resource: str) -> bool:
        found = [s for s in self.statements if s.matches(action, resource)]
        return any(s.effect == "Allow" for s in found) and not any(s.effect == "Deny" for s in found)


def _like(value: str, pattern: str) -> bool:
    """IAM's wildcards: ``*`` any run of characters (``/`` included), ``?`` one character; nothing else is special."""
    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, value, re.DOTALL) is not None


def role_permissions(template: Mapping[str, Any], role: str, names: Mapping[str, str]) -> Permissions:
    """The statements of every ``AWS::IAM::Policy`` attached to the role with logical id ``role``, and of its inline
    policies; ``names`` maps logical ids to the names their ``Ref`` resolves to (the bucket: its name)."""
    resources = template["Resources"]
    documents = [p["PolicyDocument"] for p in resources[role]["Properties"].get("Policies", [])]
    for resource in resources.values():
        props = resource.get("Properties", {})
        if resource["Type"] == "AWS::IAM::Policy" and {"Ref": role} in props.get("Roles", []):
            documents.append(props["PolicyDocument"])
    statements = [_statement(s, resources, names) for document in documents for s in document["Statement"]]
    return Permissions(tuple(statements))


def _statement(raw: Mapping[str, Any], resources: Mapping[str, Any], names: Mapping[str, str]) -> Statement:
    if "Condition" in raw or "NotAction" in raw or "NotResource" in raw:
        raise PolicyError(f"a statement this evaluator cannot read: {raw}")
    return Statement(
        raw["Effect"],
        tuple(_listed(raw["Action"])),
        tuple(_resolve(r, resources, names) for r in _listed(raw["Resource"])),
    )


def _listed(value: Any) -> Iterable[Any]:
    return value if isinstance(value, list) else [value]


def _resolve(value: Any, resources: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """A template value as text: ``Ref``, ``Fn::GetAtt`` (an ARN) and ``Fn::Join`` resolved."""
    if isinstance(value, str):
        return value
    if "Ref" in value:
        return str(names.get(value["Ref"], f"<{value['Ref']}>"))
    if "Fn::GetAtt" in value:
        logical, attribute = value["Fn::GetAtt"]
        name = names.get(logical, f"<{logical}>")
        kind = resources.get(logical, {}).get("Type")
        return (
            f"arn:aws:s3:::{name}" if kind == "AWS::S3::Bucket" and attribute == "Arn" else f"<{logical}.{attribute}>"
        )
    if "Fn::Join" in value:
        separator, parts = value["Fn::Join"]
        return str(separator).join(_resolve(part, resources, names) for part in parts)
    return f"<{value}>"
