"""The docs hold together: every relative link and anchor in the README and ``docs/`` resolves, and ``docs/api.md``
documents exactly the routes, parameters and error codes of the served OpenAPI document."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from fencepost.http.routes import ROUTES

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "infra").glob("*.md")])
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6}) (.+?)\s*$")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = unicodedata.normalize("NFC", heading).strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def _outside_code(text: str) -> list[str]:
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for line in _outside_code(path.read_text()):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[str]:
    targets = []
    for line in _outside_code(path.read_text()):
        prose = re.sub(r"`[^`]*`", "", line)  # a link shown as code is not a link
        targets += [t for t in LINK.findall(prose) if not re.match(r"[a-z]+:", t)]
    return targets


def test_the_slug_is_githubs() -> None:
    assert slug("Gates: a feed that shrinks does not go live") == "gates-a-feed-that-shrinks-does-not-go-live"
    assert slug("`GET /datasets/{name}/diff?limit=<n>`") == "get-datasetsnamedifflimitn"
    assert slug("Guarantees, and how they are tested") == "guarantees-and-how-they-are-tested"


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(path: Path) -> None:
    broken = []
    for target in links(path):
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no such heading in {resolved.relative_to(ROOT)}")
    assert broken == []


def test_the_link_check_sees_a_broken_anchor(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[ok](#title) [broken](#nowhere) [file](missing.md) `[code](#skip)`\n")
    assert links(page) == ["#title", "#nowhere", "missing.md"]
    assert anchors(page) == {"title"}


def test_the_api_doc_documents_every_route_and_its_parameters_and_errors() -> None:
    api = (ROOT / "docs" / "api.md").read_text()
    headings = [m.group(2) for line in _outside_code(api) if (m := HEADING.match(line))]
    for route in (route for route in ROUTES if route.documented):
        path = route.openapi_path
        assert any(f"{route.method} {path}" in heading for heading in headings), f"{route.method} {path}"
        for param in route.parameters:
            assert f"`{param.name}" in api or f"{param.name}=" in api, f"{route.method} {path}: {param.name}"
        for error in route.errors:
            assert f"`{error.code}`" in api, f"{route.method} {path}: {error.code}"
