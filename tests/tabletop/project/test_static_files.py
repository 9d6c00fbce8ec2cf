"""Every file a static file names is here: `collectstatic` (whitenoise's manifest storage, which
`make run` uses) follows a script's `sourceMappingURL` and a stylesheet's `url(...)` and stops on
a missing one, so the site would not start (Chart.js named a source map that was not vendored).

The scene page's ES modules (static/js/scene.js and static/js/scene/) name one another in their
``import ... from "./x.js";``: each named module is here, they import without a cycle (a file's
hashed name includes the hashed names it imports, so a cycle could not settle), and after
`collectstatic` with the storage `make run` uses each imports the hashed file of the module it
names (tabletop/static_storage.py)."""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

STATIC = Path(__file__).resolve().parents[3] / "static"
SOURCE_MAP = re.compile(r"[#@]\s*sourceMappingURL=(\S+)")
CSS_URL = re.compile(r"url\(\s*['\"]?(?!data:|https?:|#)([^'\")]+)['\"]?\s*\)")
#: A module's static import (or re-export) of another by a relative path, at a line's start.
MODULE_IMPORT = re.compile(
    r"""^(?:import|export)\b[^;'"]*?\bfrom\s*["'](\.{1,2}/[^"']+)["']\s*;""", re.M
)
#: The scene page's entry module, loaded with <script type="module"> (templates/scenes/scene.html).
SCENE_ENTRY = "js/scene.js"
#: The storage `make run` uses (tabletop/settings.py, DEBUG off).
MAKE_RUN_STORAGE = "tabletop.static_storage.HashedStaticFilesStorage"


def references(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    found = SOURCE_MAP.findall(text)
    if path.suffix == ".css":
        found += CSS_URL.findall(text)
    if path.suffix == ".js":
        found += MODULE_IMPORT.findall(text)
    return found


def module_imports(name: str, root: Path = STATIC) -> list[str]:
    """The modules a module imports, as paths under root (names like "js/scene/log.js")."""
    text = (root / name).read_text(encoding="utf-8")
    return [
        posixpath.normpath(posixpath.join(posixpath.dirname(name), ref))
        for ref in MODULE_IMPORT.findall(text)
    ]


def scene_modules() -> list[str]:
    """Every module the scene page loads: the entry and what it imports, transitively."""
    seen: list[str] = []
    todo = [SCENE_ENTRY]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.append(name)
            todo.extend(module_imports(name))
    return sorted(seen)


FILES = sorted(p for p in STATIC.rglob("*") if p.suffix in (".js", ".css"))


def test_there_are_static_files_to_check():
    assert any("vendor" in p.parts for p in FILES) and any(p.suffix == ".css" for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(STATIC)))
def test_every_file_a_static_file_names_is_here(path):
    missing = [
        ref
        for ref in references(path)
        if not (path.parent / ref.split("?")[0].split("#")[0]).resolve().is_file()
    ]
    assert not missing, f"{path.relative_to(STATIC)} names files that are not here: {missing}"


def test_a_dangling_source_map_is_caught(tmp_path):
    script = tmp_path / "lib.min.js"
    script.write_text("var a=1;\n//# sourceMappingURL=lib.min.js.map\n")
    assert references(script) == ["lib.min.js.map"]
    assert not (tmp_path / "lib.min.js.map").exists()


def test_the_scene_page_loads_its_modules_with_a_module_script():
    page = (STATIC.parent / "templates" / "scenes" / "scene.html").read_text(encoding="utf-8")
    assert f"""<script type="module" src="{{% static '{SCENE_ENTRY}' %}}"></script>""" in page


def test_every_scene_module_is_imported_and_none_is_left_over():
    modules = scene_modules()
    assert len(modules) > 5, modules  # the entry and its concerns
    on_disk = sorted(str(p.relative_to(STATIC)) for p in (STATIC / "js" / "scene").rglob("*.js"))
    assert sorted(set(on_disk) - set(modules)) == [], "modules no page imports"


def test_the_scene_modules_import_without_a_cycle():
    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"an import cycle: {' -> '.join((*path, name))}"
        for imported in module_imports(name):
            visit(imported, (*path, name))

    visit(SCENE_ENTRY, ())


def test_an_import_is_read_as_a_module_it_names(tmp_path):
    script = tmp_path / "main.js"
    script.write_text(
        'import { a, b } from "./lib/a.js";\nimport * as c from "../c.js";\n'
        "// an import in a comment from './no.js';\nexport { d } from './d.js';\n"
    )
    assert references(script) == ["./lib/a.js", "../c.js", "./d.js"]


def test_after_collectstatic_each_module_imports_the_hashed_files(tmp_path):
    root = tmp_path / "static"
    storages = {**settings.STORAGES, "staticfiles": {"BACKEND": MAKE_RUN_STORAGE}}
    with override_settings(STATIC_ROOT=root, STORAGES=storages):
        call_command("collectstatic", interactive=False, verbosity=0)
    manifest = json.loads((root / "staticfiles.json").read_text())["paths"]
    for name in scene_modules():
        hashed = manifest[name]
        assert hashed != name and (root / hashed).is_file(), name
        names = module_imports(hashed, root)
        assert names == [manifest[imported] for imported in module_imports(name)], name
        assert all((root / imported).is_file() for imported in names), name
