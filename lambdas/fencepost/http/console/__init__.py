"""The web console: one page, one stylesheet and one script, served by the lookup function at ``GET /console``.

The page reads only the public API, from the same origin, so it adds no privilege and no data path: every number it
shows is an API answer. The files sit beside this module and ship in the function's package; no build step. Each
answer carries a Content-Security-Policy that allows only these files (no inline script or style, no other origin:
``connect-src 'self'``), is compressed when the browser accepts gzip, and has a strong ``ETag`` (304 on
``If-None-Match``). The page names the assets with their digest (``?v=``), so a deploy changes their URLs and the
assets themselves can be kept for a year.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from fencepost.errors import NotFound
from fencepost.http.responses import HttpResponse

HERE: Final = Path(__file__).parent
PAGE: Final = "console.html"
ASSETS: Final = {"console.css": "text/css; charset=utf-8", "console.js": "text/javascript; charset=utf-8"}
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


@dataclass(frozen=True, slots=True)
class _File:
    content_type: str
    raw: bytes
    packed: bytes  # gzip
    digest: str

    @classmethod
    def of(cls, data: bytes, content_type: str) -> _File:
        digest = hashlib.sha256(data).hexdigest()[:20]
        return cls(content_type, data, gzip.compress(data, 9, mtime=0), digest)

    def answer(self, headers: dict[str, str], cache: str) -> HttpResponse:
        """The file, gzip when the request accepts it; each encoding has its own strong tag (RFC 9110, 8.8.3)."""
        packed = _accepts_gzip(headers.get("accept-encoding", ""))
        tag = f'"{self.digest}-gz"' if packed else f'"{self.digest}"'
        sent = {**SECURITY, "Cache-Control": cache, "ETag": tag, "Vary": "Accept-Encoding"}
        if _matches(headers.get("if-none-match", ""), self.digest):
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


def _matches(header: str, digest: str) -> bool:
    """``If-None-Match`` compared weakly (RFC 9110, 13.1.2): ``*``, or a tag of either encoding, ``W/`` or not."""
    tags = {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}
    return "*" in tags or bool(tags & {f'"{digest}"', f'"{digest}-gz"'})


class Console:
    """The console's files, read once from ``folder`` (its page names each asset with its digest)."""

    def __init__(self, folder: Path = HERE) -> None:
        self.files = {name: _File.of((folder / name).read_bytes(), kind) for name, kind in ASSETS.items()}
        page = (folder / PAGE).read_text()
        for name, file in self.files.items():
            page = page.replace(f'"{name}"', f'"console/{name}?v={file.digest}"')
        self.page = _File.of(page.encode(), "text/html; charset=utf-8")

    def sizes(self) -> dict[str, tuple[int, int]]:
        """Each file's bytes as written and gzipped."""
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
