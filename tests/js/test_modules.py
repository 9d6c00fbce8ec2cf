"""Every module of the scene page (static/js/scene/) imports under Node with no page at all: no
window, no document at import time, so its logic is tested as it ships (tests/js/). Each module
has its tests here, or says on its first line why it needs none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.node import SCENE_MODULES, needs_node, one

MODULES = sorted(SCENE_MODULES.glob("*.js"))
TESTS = Path(__file__).resolve().parent
NO_UNIT_TEST = "// No unit test: DOM wiring only"


def test_there_are_modules_to_check():
    assert len(MODULES) > 10


@needs_node
@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.name)
def test_a_module_imports_with_no_page(module):
    body = "return { window: typeof window, document: typeof document, names: Object.keys(m) };"
    imported = one(module.name, body)
    assert imported["window"] == imported["document"] == "undefined"
    assert imported["names"], f"{module.name} exports nothing"


@pytest.mark.parametrize("module", MODULES, ids=lambda p: p.name)
def test_a_module_has_its_tests_or_says_why_not(module):
    tests = TESTS / f"test_{module.stem.replace('-', '_')}.py"
    first_line = module.read_text(encoding="utf-8").splitlines()[0]
    assert tests.is_file() != first_line.startswith(NO_UNIT_TEST), (
        f"{module.name}: tests/js/{tests.name}, or a first line {NO_UNIT_TEST!r} (not both)"
    )
