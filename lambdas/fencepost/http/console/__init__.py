"""The web console: one page, its stylesheet and its script's modules, served by the lookup function at
``GET /console``.

The page reads only the public API, from the same origin: it adds no privilege and no data path. The files sit beside
this module and ship in the function's package, no build step: the page loads ``main.js`` as an ES module, which
imports the others. Each answer carries a Content-Security-Policy that allows only these files (nothing inline, no
other origin), is compressed when the browser accepts gzip, and has a strong ``ETag``.

Every asset is named by its digest (``?v=``): the page names ``main.js`` and the stylesheet so, and each module the
modules it imports (``from "./dom.js"`` is served as ``from "./dom.js?v=<digest>"``). A module's digest is that of
its text as served, found leaves first: a change in a module changes the URL of every module importing it, up to
the page's, so the assets can be kept a year. An import cycle, or an import of anything but a module beside the
page, is refused when the files are read (``ConsoleError``).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from fencepost.errors import NotFound
from fencepost.http.conditional import none_match
from fencepost.http.responses import HttpResponse

HERE: Final = Path(__file__).parent
PAGE: Final = "console.html"
TYPES: Final = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
POLICY: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; "
    "require-trusted-types-for 'script'; trusted-types 'none'"  # no string can ever become markup or script
)
SECURITY: Final = {
    "Content-Security-Policy": POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
PAGE_CACHE: Final = "no-cache"  # revalidated at each visit: a deploy shows at once
ASSET_CACHE: Final = "public, max-age=31536000, immutable"  # named by digest: a new deploy names new URLs
# A static import (or re-export) at the start of a line, its braces on any number of lines: ``import "./x.js"``,
# ``import { a } from "./x.js"``, ``export { a } from "./x.js"``
IMPORT: Final = re.compile(
    r"""(?P<head>^(?:import|export)\b(?:[^;'"]*?\bfrom)?\s*(?P<q>["']))(?P<spec>[^"']*)(?P=q)""", re.M
)


class ConsoleError(ValueError):
    """The console's files do not hold together: a module imports what is not a module beside it, or in a cycle."""


def assets(folder: Path) -> dict[str, str]:
    """Every asset of the folder, its ``.css`` and ``.js`` files, and its content type."""
    return {path.name: TYPES[path.suffix] for path in sorted(folder.iterdir()) if path.suffix in TYPES}


ASSETS: Final = assets(HERE)


@dataclass(frozen=True, slots=True)
class _File:
    content_type: str
    raw: bytes  # as served
    packed: bytes  # gzip
    digest: str

    @classmethod
    def of(cls, data: bytes, content_type: str) -> _File:
        digest = hashlib.sha256(data).hexdigest()[:20]
        return cls(content_type, data, gzip.compress(data, 9, mtime=0), digest)

    def answer(self, headers: dict[str, str], cache: str) -> HttpResponse:
        """The file, gzip when the request accepts it; each encoding has its own strong tag (RFC 9110, 8.8.3), and
        ``If-None-Match`` compares weakly (13.1.2): ``*``, or a tag of either encoding, ``W/`` or not, is a 304."""
        packed = _accepts_gzip(headers.get("accept-encoding", ""))
        tag = f'"{self.digest}-gz"' if packed else f'"{self.digest}"'
        sent = {**SECURITY, "Cache-Control": cache, "ETag": tag, "Vary": "Accept-Encoding"}
        sent_back = headers.get("if-none-match")
        if any(none_match(sent_back, each) for each in (f'"{self.digest}"', f'"{self.digest}-gz"')):
            return HttpResponse(304, "", sent, None)
        if packed:
            body = base64.b64encode(self.packed).decode()
            return HttpResponse(200, body, {**sent, "Content-Encoding": "gzip"}, self.content_type, base64=True)
        return HttpResponse(200, self.raw.decode(), sent, self.content_type)


def _accepts_gzip(header: str) -> bool:
    """Whether ``Accept-Encoding`` admits gzip (``gzip;q=0`` refuses it)."""
    for part in header.lower().split(","):
        coding, _, parameters = part.strip().partition(";")
        if coding.strip() in ("gzip", "*"):
            weight = parameters.strip().removeprefix("q=").strip() if "q=" in parameters else "1"
            try:
                return float(weight) > 0
            except ValueError:
                return False
    return False


def _served(folder: Path, kinds: dict[str, str]) -> dict[str, _File]:
    """Every asset as served, each module's imports naming the imported module's digest (the leaves' found first)."""
    files: dict[str, _File] = {}

    def visit(name: str, importers: tuple[str, ...]) -> None:
        if name in importers:
            cycle = " -> ".join((*importers[importers.index(name) :], name))
            raise ConsoleError(f"the console's modules import each other in a cycle: {cycle}")
        if name in files:
            return
        data = (folder / name).read_bytes()
        if name.endswith(".js"):
            data = IMPORT.sub(lambda match: versioned(match, (*importers, name)), data.decode()).encode()
        files[name] = _File.of(data, kinds[name])

    def versioned(match: re.Match[str], importers: tuple[str, ...]) -> str:
        spec, imported = match["spec"], match["spec"].removeprefix("./")
        if not spec.startswith("./") or not imported.endswith(".js") or imported not in kinds:
            raise ConsoleError(f"{importers[-1]} imports {spec!r}, which is not a module of the console (./<name>.js)")
        visit(imported, importers)
        return f"{match['head']}{spec}?v={files[imported].digest}{match['q']}"

    for name in kinds:
        visit(name, ())
    return files


class Console:
    """The console's files, read once from ``folder`` (its page names each asset with its digest); ``ConsoleError``
    when its modules do not hold together."""

    def __init__(self, folder: Path = HERE) -> None:
        self.files = _served(folder, assets(folder))
        page = (folder / PAGE).read_text()
        for name, file in self.files.items():
            page = page.replace(f'"{name}"', f'"console/{name}?v={file.digest}"')
        self.page = _File.of(page.encode(), "text/html; charset=utf-8")

    def sizes(self) -> dict[str, tuple[int, int]]:
        """Each file's bytes as served and gzipped."""
        files = {PAGE: self.page, **self.files}
        return {name: (len(file.raw), len(file.packed)) for name, file in files.items()}

    def answer_page(self, headers: dict[str, str]) -> HttpResponse:
        return self.page.answer(headers, PAGE_CACHE)

    def answer_asset(self, name: str, headers: dict[str, str], version: str | None) -> HttpResponse:
        """The asset, or ``NotFound``. Kept a year only under the name the page gives it (``?v=`` its digest): while
        a deploy rolls out, a new page may reach an older function, whose file must not be kept under the new name."""
        file = self.files.get(name)
        if file is None:
            path = f"/console/{name[:100]}"
            raise NotFound(f"no such path: {path}", path=path)
        return file.answer(headers, ASSET_CACHE if version == file.digest else PAGE_CACHE)
