"""The response budget: how many bytes an answer may take, so that it can always be sent.

Lambda refuses a response payload over 6,291,556 bytes (6 MiB + 100), and API Gateway then answers 500. That
payload is the JSON of the whole response (status, headers, body), so the body is counted as it appears there: a
JSON string, with every quote and backslash escaped. ``cost`` counts it escaped as ASCII (a non-ASCII character
as ``\\uXXXX``, up to 12 bytes for one character), which is never less than what the runtime sends. The default
budget, 4,500,000 bytes, stays under the limit even if a body were base64-encoded (4/3 as large).

Anything that answers with more than a few values uses one budget per response: the body parts it will send are
taken from it in order, and what does not fit is answered briefly in its place (``fit``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from fencepost.declared import LOOKUP

T = TypeVar("T")

DEFAULT_BUDGET_BYTES: Final[int] = LOOKUP["response_budget"].default  # RESPONSE_BUDGET_BYTES (fencepost.settings)

_WIDEST_CHARACTER = 12  # an astral character escaped as a surrogate pair: \ud83d\ude00


def cost(text: str) -> int:
    """The bytes ``text`` takes at most in the invocation payload: escaped as a JSON string, in ASCII."""
    return len(json.dumps(text)) - 2  # without the quotes around it


class ResponseBudget:
    """The bytes left for one response's body."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def fits(self, text: str) -> bool:
        """Whether a whole body fits (cheaply when it is far below the budget)."""
        return len(text) * _WIDEST_CHARACTER <= self.limit or cost(text) <= self.limit

    def take(self, size: int) -> bool:
        """Take ``size`` bytes (negative gives some back); False, and nothing taken, when they are not left."""
        if self.used + size > self.limit:
            return False
        self.used += size
        return True

    def fit(self, elements: Sequence[T], full: Callable[[T], str], brief: Callable[[T], str], frame: str) -> list[str]:
        """The parts of a JSON array of ``elements``, each in full while the budget lasts, then each ``brief``.

        ``frame`` is the text around the array's parts. The brief answers of every element are taken first, so the
        body never exceeds the budget as long as they fit (their size is bounded by the request's); each element in
        order is then answered in full if the difference fits. From the first that does not, every later element is
        brief too: the answered ones are always a prefix of the request, and a client resends the rest.
        """
        briefs = [brief(element) for element in elements]
        sizes = [cost(text) for text in briefs]
        self.used += cost(frame) + sum(sizes) + max(len(elements) - 1, 0)  # with the commas between parts
        parts: list[str] = []
        for element, size in zip(elements, sizes, strict=True):
            text = full(element)
            if not self.take(cost(text) - size):
                break
            parts.append(text)
        return parts + briefs[len(parts) :]
