"""The console's assets as ``fencepost.http.console`` serves them: each module's imports name the imported module's
digest (found leaves first, so a change in a leaf reaches the page's URL of ``main.js``), an import cycle or an
import of anything but a module beside the page is refused when the files are read, and ``If-None-Match`` is
compared weakly with either encoding's tag."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from fencepost.http.console import HERE, TYPES, Console, ConsoleError

# Every static import of a served module, whatever lines its braces span: the URL it names
SERVED_IMPORT = re.compile(r'^(?:import\s*|(?:import|export)\b[^;"\']*?\bfrom\s*)"([^"]+)";', re.M)
VERSIONED = re.compile(r"\./([\w.-]+\.js)\?v=([0-9a-f]{20})")


def _main_url(console: Console) -> str:
    found = re.search(r'<script type="module" src="(console/main\.js\?v=[0-9a-f]{20})">', console.page.raw.decode())
    assert found is not None
    return found.group(1)


def _copy(folder: Path) -> Path:
    """The console's page and assets, copied: a folder to change."""
    for path in HERE.iterdir():
        if path.suffix in TYPES or path.name == "console.html":
            shutil.copyfile(path, folder / path.name)
    return folder


def _folder(folder: Path, modules: dict[str, str]) -> Path:
    """A console of its own: a page that loads ``main.js``, and these modules."""
    (folder / "console.html").write_text('<script type="module" src="main.js"></script>\n')
    for name, text in modules.items():
        (folder / name).write_text(text)
    return folder


def test_every_import_of_a_served_module_names_the_imported_modules_digest() -> None:
    console = Console()
    modules = {name: file for name, file in console.files.items() if name.endswith(".js")}
    assert {"main.js", "api.js", "dom.js", "detail.js"} <= set(modules)
    seen = 0
    for name, file in modules.items():
        served = SERVED_IMPORT.findall(file.raw.decode())
        assert len(served) == len(SERVED_IMPORT.findall((HERE / name).read_text())), name  # none left out
        for url in served:
            versioned = VERSIONED.fullmatch(url)
            assert versioned is not None, (name, url)
            imported, digest = versioned.groups()
            assert digest == console.files[imported].digest, (name, url)
            seen += 1
    assert seen >= len(modules)  # main.js imports every panel, and every panel the helpers
    assert len(SERVED_IMPORT.findall(modules["main.js"].raw.decode())) >= 6


def test_a_change_in_a_leaf_module_changes_the_url_of_every_module_above_it(tmp_path: Path) -> None:
    before = Console(_copy(tmp_path))
    assert SERVED_IMPORT.findall((tmp_path / "dom.js").read_text()) == []  # a leaf: it imports nothing
    with (tmp_path / "dom.js").open("a") as leaf:
        leaf.write("// one more line\n")
    after = Console(tmp_path)
    assert _main_url(after) != _main_url(before)
    assert after.files["main.js"].digest != before.files["main.js"].digest
    assert after.files["api.js"].digest != before.files["api.js"].digest  # api.js imports dom.js
    assert after.files["console.css"].digest == before.files["console.css"].digest
    assert f"./dom.js?v={after.files['dom.js'].digest}" in after.files["api.js"].raw.decode()


def test_an_import_on_several_lines_or_a_bare_one_is_versioned_too(tmp_path: Path) -> None:
    modules = {
        "main.js": 'import {\n  a,\n  b,\n} from "./parts.js";\nimport "./side.js";\nexport { c } from "./parts.js";\n',
        "parts.js": 'export const a = 1, b = 2, c = "from";\n',
        "side.js": "document.title = 'import \"./nothing.js\"';\n",  # a string, not an import: left as it is
    }
    console = Console(_folder(tmp_path, modules))
    parts, side = console.files["parts.js"].digest, console.files["side.js"].digest
    main = console.files["main.js"].raw.decode()
    assert main.count(f'"./parts.js?v={parts}"') == 2
    assert f'import "./side.js?v={side}";' in main
    assert console.files["side.js"].raw.decode() == modules["side.js"]
    assert _main_url(console) == f"console/main.js?v={console.files['main.js'].digest}"


def test_an_import_cycle_is_refused_when_the_files_are_read(tmp_path: Path) -> None:
    modules = {"main.js": 'import { a } from "./a.js";\n', "a.js": 'import "./b.js";\n', "b.js": 'import "./a.js";\n'}
    with pytest.raises(ConsoleError, match=r"import each other in a cycle: a\.js -> b\.js -> a\.js"):
        Console(_folder(tmp_path, modules))


def test_a_module_importing_itself_is_a_cycle(tmp_path: Path) -> None:
    with pytest.raises(ConsoleError, match=r"cycle: main\.js -> main\.js"):
        Console(_folder(tmp_path, {"main.js": 'import "./main.js";\n'}))


@pytest.mark.parametrize("spec", ["./gone.js", "../secret.js", "dom.js", "./console.css", "/console/dom.js", "lodash"])
def test_an_import_of_anything_but_a_module_beside_the_page_is_refused(tmp_path: Path, spec: str) -> None:
    modules = {"main.js": f'import {{ $ }} from "./dom.js";\nimport {{ x }} from "{spec}";\n', "dom.js": "\n"}
    (tmp_path / "console.css").write_text("body {}\n")
    with pytest.raises(
        ConsoleError, match=re.escape(f"main.js imports {spec!r}, which is not a module of the console")
    ):
        Console(_folder(tmp_path, modules))


@pytest.mark.parametrize("name", ["main.js", "console.css"])
def test_if_none_match_with_either_tag_or_any_is_304_and_another_tag_200(name: str) -> None:
    console = Console()
    digest = console.files[name].digest
    matching = [f'"{digest}"', f'"{digest}-gz"', "*", f'W/"{digest}"', f'W/"{digest}-gz"', f'"other", "{digest}"']
    for sent in matching:
        answer = console.answer_asset(name, {"if-none-match": sent}, digest)
        assert (answer.status_code, answer.body) == (304, ""), sent
        assert answer.headers["ETag"] == f'"{digest}"'
    for sent in ['"other"', f'"{digest}x"', f'"{console.page.digest}"', digest]:  # the last one unquoted: no tag
        assert console.answer_asset(name, {"if-none-match": sent}, digest).status_code == 200, sent
    assert console.answer_asset(name, {}, digest).status_code == 200
    packed = console.answer_asset(name, {"accept-encoding": "gzip", "if-none-match": f'"{digest}"'}, digest)
    assert (packed.status_code, packed.headers["ETag"]) == (304, f'"{digest}-gz"')


def test_the_page_is_revalidated_the_same_way() -> None:
    console = Console()
    tag = f'"{console.page.digest}"'
    assert console.answer_page({"if-none-match": f"W/{tag}"}).status_code == 304
    assert console.answer_page({"if-none-match": '"other"'}).status_code == 200
    assert console.answer_page({}).headers["Cache-Control"] == "no-cache"
