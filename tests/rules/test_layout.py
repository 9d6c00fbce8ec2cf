"""The layout of rules/: short files, one home per system, no import cycle, no lazy import.

DESIGN.md: "rules/ pure Python, no Django import: one module (or package, when long) per system
+ core". These checks keep it so: (a) no file over 700 lines; (b) the import graph read from the
source has no cycle; (c) nothing is imported lazily; (d) every name of DESIGN.md's "Public API
of rules/" resolves.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

import rules
from tests.support.imports import find_cycle, import_graph, module_files

RULES_DIR = Path(rules.__file__).parent
MAX_LINES = 700

#: DESIGN.md "Public API of `rules/`", written out: slug -> the functions named there.
PUBLIC_API = {
    "annulus": ["is_solved", "min_adjustments", "check_probability"],
    "roll_and_keep": ["keep_count", "success_distribution", "botch_probability"],
    "conductor": ["standard_probability", "attack_hit_probability", "attack_expected_hits"],
    "two_dice": ["check_distribution"],
    "percentile": ["chart", "band_distribution", "running_movement"],
}


# --- (a) short files -----------------------------------------------------------------------------


def test_no_file_in_rules_is_over_700_lines():
    long = {
        str(path.relative_to(RULES_DIR)): n
        for path in RULES_DIR.rglob("*.py")
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these by topic: {long}"


# --- (b) no import cycle -------------------------------------------------------------------------


def test_rules_import_graph_has_no_cycle():
    cycle = find_cycle(import_graph(RULES_DIR))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_core_imports_nothing_from_rules():
    # rules/__init__ imports every system and every system imports core: core must not import back.
    assert import_graph(RULES_DIR)["rules.core"] == set()


def test_the_graph_sees_the_real_imports():
    graph = import_graph(RULES_DIR)
    assert {"rules.core", "rules.annulus", "rules.percentile"} <= graph["rules"]
    assert "rules.conductor.wilderness" in graph["rules.conductor"]
    assert "rules.conductor.standard" in graph["rules.conductor.wilderness"]
    assert "rules.core" in graph["rules.conductor.standard"]


@pytest.mark.parametrize(
    ("graph", "cycle"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
        ({"a": {"b", "c"}, "b": {"c"}, "c": set()}, None),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
        ({"x": {"a"}, "a": {"b"}, "b": {"a"}}, ["a", "b", "a"]),
        ({"a": {"a"}}, ["a", "a"]),
    ],
)
def test_find_cycle_on_small_graphs(graph, cycle):
    assert find_cycle(graph) == cycle


def test_a_cycle_through_relative_and_package_imports_is_caught(tmp_path):
    # game/__init__ imports its module; the module imports back from the package: a cycle.
    package = tmp_path / "game"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from game.sub import moves\n")
    (package / "core.py").write_text("import os\n")
    (package / "sub" / "__init__.py").write_text("from . import moves\n")
    (package / "sub" / "moves.py").write_text("from .. import core\nfrom game import sub\n")
    graph = import_graph(package)
    assert graph["game.sub.moves"] == {"game.core", "game.sub"}
    cycle = find_cycle(graph)
    assert cycle is not None and cycle[0] == cycle[-1]
    assert set(cycle) == {"game.sub", "game.sub.moves"}
    (package / "sub" / "moves.py").write_text("from ..core import os\n")
    assert find_cycle(import_graph(package)) is None


# --- (c) no lazy import --------------------------------------------------------------------------


def lazy_imports(path: Path) -> list[str]:
    """Module-level ``__getattr__``/``__dir__``, ``importlib.import_module``/``__import__``
    calls, and import statements inside a function or class."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = [
        f"module-level {node.name}"
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name in ("__getattr__", "__dir__")
    ]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("import_module", "__import__"):
                found.append(f"{called}() on line {node.lineno}")
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found += [
                f"import inside {node.name} on line {inner.lineno}"
                for inner in ast.walk(node)
                if isinstance(inner, ast.Import | ast.ImportFrom)
            ]
    return found


def test_nothing_in_rules_is_imported_lazily():
    offenders = {
        str(path.relative_to(RULES_DIR)): found
        for path in RULES_DIR.rglob("*.py")
        if (found := lazy_imports(path))
    }
    assert offenders == {}


def test_the_lazy_import_check_finds_the_tricks(tmp_path):
    path = tmp_path / "lazy.py"
    path.write_text(
        "import importlib\n\n"
        "def __getattr__(name):\n"
        "    from rules import core\n"
        "    return importlib.import_module('rules.' + name)\n"
    )
    assert lazy_imports(path) == [
        "module-level __getattr__",
        "import inside __getattr__ on line 4",
        "import_module() on line 5",
    ]


# --- (d) the public API of DESIGN.md -------------------------------------------------------------


def test_systems_is_a_plain_dict_of_the_five_packages():
    assert type(vars(rules)["SYSTEMS"]) is dict
    assert list(rules.SYSTEMS) == list(rules.SLUGS)
    for slug, module in rules.SYSTEMS.items():
        assert module is importlib.import_module(f"rules.{slug}") is getattr(rules, slug)


@pytest.mark.parametrize(
    "path", [f"{slug}.{name}" for slug, names in PUBLIC_API.items() for name in names]
)
def test_every_public_api_name_resolves(path):
    slug, name = path.split(".")
    fn = getattr(rules.SYSTEMS[slug], name)
    assert callable(fn)
    assert fn is getattr(importlib.import_module(f"rules.{slug}"), name)


def test_no_module_of_a_package_hides_behind_a_public_name():
    # A module named like one of its package's names (odds.py beside odds()) would make
    # ``package.odds`` depend on import order.
    clashes = []
    for name in module_files(RULES_DIR):
        package, _, leaf = name.rpartition(".")
        module = importlib.import_module(name)  # imports its package first
        if package and getattr(sys.modules[package], leaf) is not module:
            clashes.append(name)
    assert clashes == []
