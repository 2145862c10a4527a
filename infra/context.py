"""Reading one CDK context value (``-c key=value``) as text, a whole number, a switch or a choice.

Values come from the command line as text or from ``cdk.json`` as JSON; each reader accepts both and raises
SettingsError with the key and what it accepts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import StrEnum
from typing import Any, TypeVar

from fencepost.declared import SettingsError  # a context value the stack cannot use: the functions' own error

__all__ = ["SettingsError", "choice", "given", "optional_int", "switch", "text", "whole"]

ContextGetter = Callable[[str], Any]
E = TypeVar("E", bound=StrEnum)


def given(raw: Any) -> bool:
    return raw is not None and not (isinstance(raw, str) and not raw.strip())


def text(get: ContextGetter, key: str, default: str) -> str:
    value = get(key)
    return default if value is None else str(value).strip()


def matching(get: ContextGetter, key: str, default: str, pattern: str, what: str) -> str:
    """A text value that must match ``pattern`` whole (``what`` says what it may be)."""
    value = text(get, key, default)
    if not re.fullmatch(pattern, value):
        raise SettingsError(f"{key} must be {what}, not {value!r}")
    return value


def whole(get: ContextGetter, key: str, default: int, *, low: int, high: int | None = None) -> int:
    value = optional_int(get, key, low=low, high=high)
    return default if value is None else value


def optional_int(get: ContextGetter, key: str, *, low: int, high: int | None = None) -> int | None:
    raw = get(key)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if isinstance(raw, bool):
        raise SettingsError(f"{key} must be a whole number, not {raw!r}")
    try:
        value = int(str(raw).strip().replace("_", ""))
    except ValueError:
        raise SettingsError(f"{key} must be a whole number, not {raw!r}") from None
    if value < low or (high is not None and value > high):
        bounds = f"at least {low}" if high is None else f"between {low} and {high}"
        raise SettingsError(f"{key} must be {bounds}, not {value}")
    return value


def switch(get: ContextGetter, key: str, *, default: bool) -> bool:
    raw = get(key)
    if raw is None:
        return default
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("on", "true", "yes", "1"):
        return True
    if text in ("off", "false", "no", "0"):
        return False
    raise SettingsError(f"{key} must be on or off (true/false), not {raw!r}")


def choice(get: ContextGetter, key: str, kind: type[E], default: E) -> E:
    raw = get(key)
    if raw is None:
        return default
    try:
        return kind(str(raw).strip().lower())
    except ValueError:
        allowed = ", ".join(repr(member.value) for member in kind)
        raise SettingsError(f"{key} must be one of {allowed}, not {raw!r}") from None
