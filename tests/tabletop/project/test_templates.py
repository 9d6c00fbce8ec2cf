"""Template hygiene: Django's {# #} comment is single-line only; a multi-line one is printed
verbatim on the page (it once put a developer note into every roll form)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

TEMPLATES = sorted((Path(__file__).resolve().parents[3] / "templates").rglob("*.html"))


def test_templates_were_found():
    assert len(TEMPLATES) > 20


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_no_comment_spans_lines(path: Path):
    text = path.read_text()
    for match in re.finditer(r"\{#", text):
        closing = text.find("#}", match.end())
        line_end = text.find("\n", match.end())
        assert closing != -1 and (line_end == -1 or closing < line_end), (
            f"{path.name}: a {{# #}} comment must close on its own line; use {{% comment %}}"
        )
