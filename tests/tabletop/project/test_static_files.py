"""Every file a static file names is here: `collectstatic` (whitenoise's manifest storage, which
`make run` uses) follows a script's `sourceMappingURL` and a stylesheet's `url(...)` and stops on
a missing one, so the site would not start (Chart.js named a source map that was not vendored)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[3] / "static"
SOURCE_MAP = re.compile(r"[#@]\s*sourceMappingURL=(\S+)")
CSS_URL = re.compile(r"url\(\s*['\"]?(?!data:|https?:|#)([^'\")]+)['\"]?\s*\)")


def references(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    found = SOURCE_MAP.findall(text)
    if path.suffix == ".css":
        found += CSS_URL.findall(text)
    return found


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
