"""One item codec for every record, derived from the dataclasses' fields and their type hints.

A record's attributes are its fields under their own names (fields marked as key fields live in PK/SK instead);
``None`` and empty sets are left out at the top level (DynamoDB stores neither well) and read back as the field's
default. Numbers come back as the field's type; enums, nested records and lists of records are rebuilt.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from decimal import Decimal
from enum import Enum
from typing import Any, TypeVar

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

Item = dict[str, Any]  # DynamoDB's attribute-value form
R = TypeVar("R")

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


def to_value(value: Any) -> Any:  # noqa: PLR0911 - one branch per kind of value
    """A record, or any value a record holds, as plain Python that boto3 can serialize (floats as Decimal)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {spec.name: to_value(getattr(value, spec.name)) for spec in _stored_fields(type(value))}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, float):
        return Decimal(str(value))
    if isinstance(value, list | tuple):
        return [to_value(element) for element in value]
    if isinstance(value, set):
        return {to_value(element) for element in value}
    if isinstance(value, dict):
        return {key: to_value(element) for key, element in value.items()}
    return value


def attribute(value: Any) -> Any:
    """One value in DynamoDB's attribute-value form."""
    return _serializer.serialize(to_value(value))


def encode(record: Any, **keys: Any) -> Item:
    """A record as an item: ``keys`` (PK, SK) first, then every stored field that has a value."""
    item = {name: attribute(value) for name, value in keys.items()}
    for name, value in to_value(record).items():
        if value is None or (isinstance(value, set) and not value):
            continue
        item[name] = _serializer.serialize(value)
    return item


def decode(kind: type[R], item: Item, **keys: Any) -> R:
    """A record of type ``kind`` from an item; ``keys`` supplies the fields that live in the item's key."""
    plain = {name: _deserializer.deserialize(value) for name, value in item.items()}
    return _record(kind, {**plain, **keys})


@functools.cache
def _stored_fields(kind: type) -> tuple[dataclasses.Field[Any], ...]:
    return tuple(spec for spec in dataclasses.fields(kind) if not spec.metadata.get("key"))


@functools.cache
def _hints(kind: Any) -> dict[str, Any]:
    return typing.get_type_hints(kind)


def _record(kind: type[R], raw: dict[str, Any]) -> R:
    hints = _hints(kind)  # type: ignore[arg-type]
    values = {}
    for spec in dataclasses.fields(kind):  # type: ignore[arg-type]
        if spec.name in raw:  # a missing field takes its default
            values[spec.name] = _typed(hints[spec.name], raw[spec.name])
    return kind(**values)


def _typed(hint: Any, value: Any) -> Any:  # noqa: PLR0911 - one branch per kind of type
    """``value`` as read from DynamoDB, made the type ``hint`` says."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        (inner,) = [arg for arg in args if arg is not type(None)]
        return _typed(inner, value)
    if origin is list:
        return [_typed(args[0], element) for element in value]
    if origin is set:
        return {_typed(args[0], element) for element in value}
    if origin is tuple:
        return tuple(_typed(args[0], element) for element in value)
    if dataclasses.is_dataclass(hint):
        return _record(hint, value)  # type: ignore[arg-type]
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    if value is None:
        return None
    if hint is int:
        return int(value)
    if hint is float:
        return float(value)
    if hint is Any and isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value
