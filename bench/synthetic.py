"""A synthetic range file of any size, shaped like real ones: sorted IPv4 ranges with gaps, some nested."""

from __future__ import annotations

import random
import string
from pathlib import Path


def write(path: Path, rows: int, seed: int = 5) -> Path:
    rng = random.Random(seed)
    countries = [
        "".join(pair)
        for pair in zip(string.ascii_uppercase * 10, rng.sample(string.ascii_uppercase * 10, 260), strict=True)
    ]
    step = (2**32 - 2**24) // rows  # spread over the whole space, leaving the top /8 free
    path.parent.mkdir(parents=True, exist_ok=True)  # bench-results/ does not exist in a fresh clone
    with path.open("w") as out:
        address = 2**24
        written = 0
        while written < rows:
            size = rng.randint(step // 4, step - 1)
            end = address + size
            out.write(_row(address, end, rng, countries))
            written += 1
            if size > 64 and rng.random() < 0.03 and written < rows:  # a more specific range inside it
                inner = address + rng.randint(0, size // 2)
                out.write(_row(inner, inner + size // 4, rng, countries))
                written += 1
            address = end + 1 + rng.randint(0, step // 8)
    return path


def _row(start: int, end: int, rng: random.Random, countries: list[str]) -> str:
    return f"{_dotted(start)}\t{_dotted(end)}\t{rng.choice(countries)}\tAS{rng.randint(1, 400000)}\n"


def _dotted(value: int) -> str:
    return f"{value >> 24}.{(value >> 16) & 255}.{(value >> 8) & 255}.{value & 255}"
