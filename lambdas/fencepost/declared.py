"""One setting of the functions: its environment variable, default, bounds and meaning, how its text is read and
written, and the error a value it cannot take raises. The tables of settings are ``fencepost.settings``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

T = TypeVar("T", int, float, bool, str)


class SettingsError(ValueError):
    """A value a function or the stack cannot use; the message names the variable or key and what it accepts."""


@dataclass(frozen=True, slots=True)
class Setting(Generic[T]):
    """One setting. ``deployed``: what the stack writes when it differs from the function's own default (local runs
    and tests get ``default``); ``context``: the ``cdk deploy -c`` key that sets it, if it is a deployment choice."""

    env: str
    default: T
    low: float | None = None
    high: float | None = None
    doc: str = ""
    context: str | None = None
    deployed: T | None = None

    def read(self, env: Mapping[str, str]) -> T:
        raw = env.get(self.env, "").strip()
        return self.default if not raw else self.parse(raw, self.env)

    def parse(self, raw: Any, source: str) -> T:
        """``raw`` (text, or a JSON value from ``cdk.json``) as this setting's type, within its bounds."""
        kind = _PARSERS[type(self.default)]
        if isinstance(raw, bool) and not isinstance(self.default, bool):
            raise SettingsError(f"{source} must be {_WHAT[type(self.default)]}, not {raw!r}")
        try:
            value: Any = raw if isinstance(raw, bool) else kind(str(raw).strip())
        except ValueError:
            raise SettingsError(f"{source} must be {_WHAT[type(self.default)]}, not {raw!r}") from None
        if self.low is not None and self.high is not None and not self.low <= float(value) <= self.high:
            raise SettingsError(f"{source} must be between {self.low} and {self.high}, not {value}")
        parsed: T = value
        return parsed

    def text(self, value: T) -> str:
        """``value`` as the function's environment holds it."""
        return ("true" if value else "false") if isinstance(value, bool) else _text(value)


def _whole(raw: str) -> int:
    return int(raw.replace("_", ""))


def _boolean(raw: str) -> bool:
    word = raw.lower()
    if word in ("1", "true", "on", "yes"):
        return True
    if word in ("0", "false", "off", "no"):
        return False
    raise ValueError(raw)


def _text(value: float | int | str) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


_PARSERS: Final[dict[type, Callable[[str], Any]]] = {bool: _boolean, int: _whole, float: float, str: str}
_WHAT: Final = {bool: "on or off (true/false)", int: "a whole number", float: "a number", str: "text"}
