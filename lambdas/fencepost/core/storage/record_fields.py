"""How a record's field is stored and served, as dataclass field metadata: the data layer's codec
(``fencepost.aws.dynamo.codec``) reads ``key``, the API (``DatasetRecord.to_api``, the OpenAPI document) reads
``served``, ``api`` and ``doc``."""

from __future__ import annotations

from dataclasses import field
from typing import Any


def key_field(**kwargs: Any) -> Any:
    """A field that is part of an item's key (PK/SK), not one of its attributes."""
    return field(metadata={"key": True}, **kwargs)


def bookkeeping(**kwargs: Any) -> Any:
    """A field the loader keeps for itself: stored, never served."""
    return field(metadata={"served": False}, **kwargs)


def served_as(name: str, doc: str, **kwargs: Any) -> Any:
    """A field served by the API under another name, with its description in the API's document."""
    return field(metadata={"api": name, "doc": doc}, **kwargs)


def documented(doc: str, **kwargs: Any) -> Any:
    """A served field with its description in the API's document."""
    return field(metadata={"doc": doc}, **kwargs)
