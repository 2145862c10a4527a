"""The parameters of reverse lookups, declared once: read by their routes (``reverse_routes``, ``value_routes``) and
by the route table (``routes``), which imports only this light module at cold start."""

from __future__ import annotations

from typing import Final

MAX_WHERE_CHARS: Final = 1024  # a column name, its separator and a value
FORMATS: Final = ("json", "cidr", "text")  # what ``GET /ranges?where=`` answers
NEXT_CURSOR: Final = "Next-Cursor"  # the header that carries a text page's cursor
SORTS: Final = ("value", "pieces", "ipv4")  # the orders of ``GET /datasets/{name}/values/{column}``
