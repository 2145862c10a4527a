"""``GET /console`` and its files (a stylesheet and the script's modules), as the lookup function serves them: a
policy that allows only them, nothing inline, compressed when the browser takes gzip, revalidated by a strong tag,
and under the weight budget."""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
from html.parser import HTMLParser
from typing import Any

from fencepost.bootstrap.lookup_wiring import LookupFunction
from fencepost.http.console import ASSETS, HERE, Console
from tests.support import LambdaContext, event

BUDGET = 100 * 1024  # the page and its files, gzip


def _get(module: LookupFunction, path: str, query: dict[str, str] | None = None, /, **headers: str) -> dict[str, Any]:
    ev = event("console-get")
    ev["rawPath"] = ev["requestContext"]["http"]["path"] = path
    ev["headers"] = headers
    if query:
        ev["queryStringParameters"] = query
    answer: dict[str, Any] = module.handler(ev, LambdaContext())
    return answer


def _body(answer: dict[str, Any]) -> bytes:
    raw = answer["body"].encode()
    return gzip.decompress(base64.b64decode(raw)) if answer["isBase64Encoded"] else raw


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.styles: list[dict[str, str | None]] = []
        self.inline: list[str] = []  # script text, style elements, style or event attributes
        self.ids: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.ids += [found["id"] or ""] if "id" in found else []
        self.inline += [f"{tag} {name}" for name in found if name == "style" or name.startswith("on")]
        if tag == "script":
            self.scripts.append(found)
            self._in_script = True
        if tag == "style":
            self.inline.append("a style element")
        if tag == "link" and found.get("rel") == "stylesheet":
            self.styles.append(found)

    def handle_endtag(self, tag: str) -> None:
        self._in_script = self._in_script and tag != "script"

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline.append(f"script text {data[:40]!r}")


def test_the_page_allows_only_its_own_files_and_inlines_nothing(lookup_handler: LookupFunction) -> None:
    answer = _get(lookup_handler, "/console")
    assert answer["statusCode"] == 200
    headers = answer["headers"]
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    policy = dict(part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";"))
    assert (policy["default-src"], policy["script-src"], policy["style-src"]) == ("'none'", "'self'", "'self'")
    assert (policy["connect-src"], policy["frame-ancestors"]) == ("'self'", "'none'")
    assert (policy["require-trusted-types-for"], policy["trusted-types"]) == ("'script'", "'none'")
    assert "unsafe" not in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    page = _Page()
    page.feed(_body(answer).decode())
    assert page.inline == []
    assert [script["src"] for script in page.scripts] == [f"console/main.js?v={_digest('main.js')}"]
    assert [script.get("type") for script in page.scripts] == ["module"]
    assert [style["href"] for style in page.styles] == [f"console/console.css?v={_digest('console.css')}"]
    assert len(page.ids) == len(set(page.ids))


def _digest(name: str) -> str:
    """The digest of the file as served (a module's imports carry their own digests)."""
    return hashlib.sha256(Console().files[name].raw).hexdigest()[:20]


def _unversioned(body: bytes) -> bytes:
    """A served module without the digests its imports carry: the file as written."""
    return re.sub(rb'(from\s*"\./[\w.-]+\.js)\?v=[0-9a-f]{20}"', rb'\1"', body)


def test_every_file_is_served_with_its_type_compressed_or_not(lookup_handler: LookupFunction) -> None:
    for name, content_type in ASSETS.items():
        named = {"v": _digest(name)}
        plain = _get(lookup_handler, f"/console/{name}", named)
        packed = _get(lookup_handler, f"/console/{name}", named, **{"accept-encoding": "gzip, br"})
        refused = _get(lookup_handler, f"/console/{name}", named, **{"accept-encoding": "br, gzip;q=0"})
        assert (plain["statusCode"], packed["statusCode"]) == (200, 200)
        assert plain["headers"]["Content-Type"] == packed["headers"]["Content-Type"] == content_type
        assert "Content-Encoding" not in plain["headers"]
        assert "Content-Encoding" not in refused["headers"]
        assert packed["headers"]["Content-Encoding"] == "gzip"
        assert _body(plain) == _body(packed) == _body(refused)
        assert hashlib.sha256(_body(plain)).hexdigest()[:20] == named["v"]
        assert _unversioned(_body(plain)) == (HERE / name).read_bytes()
        assert packed["headers"]["ETag"] != plain["headers"]["ETag"]  # one strong tag per encoding
        assert plain["headers"]["Cache-Control"] == "public, max-age=31536000, immutable"


def test_a_file_is_kept_a_year_only_under_its_own_digest(lookup_handler: LookupFunction) -> None:
    """While a deploy rolls out, a new page may ask an older function: what it answers must not be kept long."""
    for query in (None, {"v": "0" * 20}):
        answer = _get(lookup_handler, "/console/main.js", query)
        assert answer["statusCode"] == 200
        assert answer["headers"]["Cache-Control"] == "no-cache"


def test_a_tag_sent_back_is_answered_304_and_an_unknown_file_404(lookup_handler: LookupFunction) -> None:
    first = _get(lookup_handler, "/console")
    again = _get(lookup_handler, "/console", **{"if-none-match": first["headers"]["ETag"]})
    assert (again["statusCode"], again["body"]) == (304, "")
    assert again["headers"]["ETag"] == first["headers"]["ETag"]
    packed = _get(lookup_handler, "/console", **{"accept-encoding": "gzip"})
    for sent in (f"W/{first['headers']['ETag']}", f'"x", {packed["headers"]["ETag"]}', "*"):  # compared weakly
        assert _get(lookup_handler, "/console", **{"if-none-match": sent})["statusCode"] == 304
    assert _get(lookup_handler, "/console", **{"if-none-match": '"other"'})["statusCode"] == 200
    assert first["headers"]["Cache-Control"] == "no-cache"
    missing = _get(lookup_handler, "/console/console.map")
    assert missing["statusCode"] == 404
    assert '"NOT_FOUND"' in missing["body"]
    nested = _get(lookup_handler, "/console/a/main.js")
    assert nested["statusCode"] == 404


def test_the_page_and_its_files_weigh_under_the_budget() -> None:
    sizes = Console().sizes()
    assert set(sizes) == {"console.html", *ASSETS}
    assert sum(packed for _, packed in sizes.values()) <= BUDGET


def test_the_script_never_writes_markup() -> None:
    """Values from the API reach the page as text only: no module of the script has a way of writing HTML."""
    modules = sorted(HERE.glob("*.js"))
    assert "main.js" in {module.name for module in modules}
    for module in modules:
        script = module.read_text()
        found = re.findall(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function", script)
        assert found == [], module.name
