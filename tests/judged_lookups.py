"""Lookups judged against an in-memory reference of the file (brute force over its rows, ``tests.reference``):
each answer is right, or the documented ``503 UNAVAILABLE``, or it is counted as wrong, with what was wrong.

Shared by the fault tests (``tests/e2e/test_injected_faults.py``) and the soak of ``make bench`` (``bench.soak``).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import requests

from fencepost.core.space.addresses import V4, format_address
from tests.reference import range_span
from tests.support import family_ranges

Expected = dict[str, Any] | None  # the answer's data and range, or None for no range (404 NOT_FOUND)


def expected_answers(rows: Sequence[Sequence[str]], addresses: Sequence[int]) -> dict[int, Expected]:
    """What each address must answer, by the overlap rule over the IPv4 rows: among the rows holding it, the
    greatest start, then the narrowest, then the latest (``tests.reference``'s rule, on 64-bit integers: IPv4
    only, about 3 ms an address over the whole shared file)."""
    ranges = family_ranges(rows)[V4]
    starts, ends = np.array(ranges.starts, dtype=np.int64), np.array(ranges.ends, dtype=np.int64)
    answers: dict[int, Expected] = {}
    for address in addresses:
        holding = np.flatnonzero((starts <= address) & (ends >= address)).tolist()
        row = max(holding, key=lambda r: (ranges.starts[r], -ranges.ends[r], r)) if holding else None
        answers[address] = (
            None
            if row is None
            else {
                "data": {f"col{3 + n}": value for n, value in enumerate(ranges.values[row])},
                "range": range_span(V4, ranges.starts[row], ranges.ends[row]),
            }
        )
    return answers


def sample_addresses(rows: Sequence[Sequence[str]], count: int, seed: int = 37) -> list[int]:
    """Addresses spread over the rows' span, gaps included."""
    ranges = family_ranges(rows)[V4]
    rng = random.Random(seed)
    return [rng.randint(min(ranges.starts), max(ranges.ends)) for _ in range(count)]


RIGHT, UNAVAILABLE, NOT_LIVE, WRONG, UNDOCUMENTED = "right", "unavailable", "not live yet", "wrong", "undocumented 5xx"
Versions = Mapping[int, dict[int, Expected]]  # what each version must answer, by address


def verdict(
    status: int, body: Any, headers: Any, expected: Versions, address: int, *, unknown_ok: bool = False
) -> tuple[str, str]:
    """The kind of answer (``RIGHT``, ``UNAVAILABLE``: the documented 503, ``NOT_LIVE``: 404 UNKNOWN_DATASET while
    ``unknown_ok``, ``WRONG``, ``UNDOCUMENTED``) and, unless right, what it was."""
    code = body.get("error", {}).get("code") if isinstance(body, dict) else None
    if status == 503 and code == "UNAVAILABLE" and "retry-after" in headers:
        return UNAVAILABLE, ""
    if status >= 500:
        return UNDOCUMENTED, f"{status} {code}"
    if unknown_ok and (status, code) == (404, "UNKNOWN_DATASET"):
        return NOT_LIVE, ""
    version = body.get("version") if isinstance(body, dict) else None
    if not isinstance(version, int) or version not in expected:
        return WRONG, f"{status} {code}: version {version!r} is not a version of the files"
    return _against(expected[version][address], status, code, body)


def _against(want: Expected, status: int, code: str | None, body: Any) -> tuple[str, str]:
    """An answer of a version compared with what that version must answer."""
    if want is None:
        return (RIGHT, "") if (status, code) == (404, "NOT_FOUND") else (WRONG, f"{status} {code}: no range holds it")
    if status != 200:
        return WRONG, f"{status} {code}, but a range holds it"
    got = {"data": body.get("data"), "range": {k: body["range"].get(k) for k in ("start", "end", "cidrs")}}
    return (RIGHT, "") if got == want else (WRONG, f"version {body['version']} answered {got} instead of {want}")


def wait_for_new_load(stack: Any, dataset: str, before: dict[str, Any] | None, timeout: float) -> dict[str, Any]:
    """The dataset's record once a load newer than ``before``'s has ended (READY or FAILED), as the API serves it
    (``LocalStack.dataset``: None while the API answers 503 under faults)."""
    seen = before["load"]["version"] if before and before["load"]["version"] is not None else 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        record = stack.dataset(dataset)
        load = record["load"] if record else {}
        if record and record["status"] != "LOADING" and (load.get("version") or 0) > seen:
            found: dict[str, Any] = record
            return found
        time.sleep(0.2)
    raise TimeoutError(f"no new load of {dataset!r} ended within {timeout} s")


@dataclass
class Judged:
    statuses: Counter[int] = field(default_factory=Counter)
    verdicts: Counter[str] = field(default_factory=Counter)
    seconds: list[float] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)  # the first few wrong or undocumented answers, to show

    @property
    def count(self) -> int:
        return sum(self.statuses.values())

    def add(self, other: Judged) -> None:
        self.statuses.update(other.statuses)
        self.verdicts.update(other.verdicts)
        self.seconds += other.seconds
        self.wrong += other.wrong[: max(0, 10 - len(self.wrong))]


def look_up(
    session: requests.Session,
    api: str,
    dataset: str,
    address: int,
    expected: Versions,
    *,
    unknown_ok: bool = False,
) -> Judged:
    """One GET /lookup, timed and judged (``verdict``)."""
    judged = Judged()
    started = time.perf_counter()
    response = session.get(f"{api}/lookup", params={"ip": format_address(V4, address), "dataset": dataset}, timeout=60)
    judged.seconds.append(time.perf_counter() - started)
    try:
        body = response.json()
    except ValueError:
        body = None
    kind, said = verdict(response.status_code, body, response.headers, expected, address, unknown_ok=unknown_ok)
    judged.statuses[response.status_code] += 1
    judged.verdicts[kind] += 1
    if kind in (WRONG, UNDOCUMENTED):
        judged.wrong.append(f"{format_address(V4, address)}: {said}")
    return judged
