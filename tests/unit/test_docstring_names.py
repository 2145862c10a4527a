"""The code's prose holds together: every dotted name a docstring or comment quotes (``core.storage.keys``,
``fencepost.loading.recipe.read_folder``, ``Limits.lowered_for``-style names are left alone) names a module, or
something a module defines, that exists; every path it quotes (``tests/fakes/world.py``, ``local/faults/``) exists.
A module moved or renamed without its mentions fails here, as ``test_docs.py`` fails a broken link."""

from __future__ import annotations

import ast
import importlib
import io
import re
import sys
import tokenize
from pathlib import Path

import pytest

from tests.support import ROOT

FOLDERS = ["lambdas/fencepost", "capacity", "planner", "local", "bench", "infra", "tests"]
# The rooms a short form starts with (``core.versions.diffs`` for ``fencepost.core.versions.diffs``)
SERVICE_ROOMS = {p.name for p in (ROOT / "lambdas" / "fencepost").iterdir() if p.is_dir() and p.name != "__pycache__"}
SERVICE_ROOMS |= {p.stem for p in (ROOT / "lambdas" / "fencepost").glob("*.py")} - {"__init__"}
TOP = {"fencepost", "capacity", "planner", "local", "bench", "infra", "tests"}
QUOTED = re.compile(r"``([^`\s]+)``")
DOTTED = re.compile(r"[a-z_][a-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+")
PATH = re.compile(r"(?:lambdas/fencepost|capacity|planner|local|bench|infra|tests|docs|events|samples)/[\w./-]*")


def _sources() -> list[Path]:
    return sorted(
        path for folder in FOLDERS for path in (ROOT / folder).rglob("*.py") if "__pycache__" not in path.parts
    )


def _prose(path: Path) -> list[str]:
    """The file's docstrings and comments."""
    text = path.read_text()
    found = [
        node.value.value
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    ]
    found += [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    return found


def _module_file(name: str) -> bool:
    relative = Path(*name.split("."))
    return any(
        (base / relative).with_suffix(".py").is_file() or (base / relative / "__init__.py").is_file()
        for base in (ROOT / "lambdas", ROOT)
    )


def _resolves(name: str) -> bool:
    """A module found on disk (not imported: a handler module wires its function when imported), or a name that
    module defines (imported then)."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        if not _module_file(".".join(parts[:cut])):
            continue
        if cut == len(parts):
            return True
        target: object = importlib.import_module(".".join(parts[:cut]))
        for attribute in parts[cut:]:
            fields = getattr(target, "__dataclass_fields__", {}) or getattr(target, "__annotations__", {})
            if not (hasattr(target, attribute) or attribute in fields):
                return False
            target = getattr(target, attribute, None)
        return True
    return False


def _names(path: Path) -> set[str]:
    names = set()
    for prose in _prose(path):
        for text in QUOTED.findall(prose):
            quoted = text.rstrip(".,:;)").removesuffix("()")
            if DOTTED.fullmatch(quoted) and quoted.split(".")[0] in TOP | SERVICE_ROOMS and not _a_file(quoted):
                names.add(quoted)
    return names


def _standard(name: str) -> bool:
    """A name of Python's own library (``http.client``, beside the service's ``http`` room)."""
    parts = name.split(".")
    if parts[0] not in sys.stdlib_module_names:
        return False
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def _a_file(name: str) -> bool:
    return name.rsplit(".", 1)[-1] in {"json", "jsonl", "csv", "tsv", "gz", "txt", "md", "py", "mmdb", "js", "html"}


def _paths(path: Path) -> set[str]:
    """Paths quoted whole (a pattern such as ``events/url-*.json`` is not a path)."""
    quoted = [text for prose in _prose(path) for text in QUOTED.findall(prose) if not set(text) & set("*<{")]
    return {match.rstrip(".,:;)") for text in quoted for match in PATH.findall(text)}


SOURCES = _sources()


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(ROOT)) for p in SOURCES])
def test_every_dotted_name_and_path_the_prose_quotes_exists(path: Path) -> None:
    unresolved = []
    for name in sorted(_names(path)):
        candidates = [name] if name.split(".")[0] in TOP else [f"fencepost.{name}", name]
        if not any(_resolves(candidate) for candidate in candidates) and not _standard(name):
            unresolved.append(name)
    missing = [quoted for quoted in sorted(_paths(path)) if not (ROOT / quoted).exists()]
    assert (unresolved, missing) == ([], [])
