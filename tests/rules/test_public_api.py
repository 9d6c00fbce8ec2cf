"""The public API of rules/ exists exactly as DESIGN.md names it, and rules/ stays Django-free."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import rules

RULES_DIR = Path(rules.__file__).parent


def test_systems_map_each_slug_to_its_module():
    assert set(rules.SYSTEMS) == {"annulus", "roll_and_keep", "conductor", "two_dice", "percentile"}
    for slug, module in rules.SYSTEMS.items():
        assert module.__name__ == f"rules.{slug}"
        assert isinstance(module.DEFAULT_RULESET, dict)
        assert module.validate_ruleset(None) == module.validate_ruleset({})


@pytest.mark.parametrize(
    ("path", "keyword_only"),
    [
        ("annulus.is_solved", []),
        ("annulus.min_adjustments", []),
        ("annulus.check_probability", ["dice", "needed", "sides", "target"]),
        ("roll_and_keep.keep_count", ["attribute", "mana", "specialities", "links"]),
        ("roll_and_keep.success_distribution", ["rolled", "kept", "difficulty"]),
        ("roll_and_keep.botch_probability", ["rolled", "kept", "difficulty"]),
        ("conductor.standard_probability", ["skill", "difficulty"]),
        ("conductor.attack_hit_probability", ["skill", "difficulty"]),
        ("conductor.attack_expected_hits", ["skill", "difficulty"]),
        ("two_dice.check_distribution", ["attribute", "difficulty", "penalty"]),
        ("percentile.chart", []),
        ("percentile.band_distribution", ["modifier"]),
        ("percentile.running_movement", ["roll", "quickness", "total_penalty", "pace", "mv"]),
    ],
)
def test_named_functions_exist_with_their_keywords(path, keyword_only):
    module_name, name = path.split(".")
    fn = getattr(rules.SYSTEMS[module_name], name)
    params = inspect.signature(fn).parameters
    for keyword in keyword_only:
        assert keyword in params, f"{path} lacks {keyword}"
        assert params[keyword].kind is inspect.Parameter.KEYWORD_ONLY, f"{path}: {keyword}"


def test_api_answers_are_exact_fractions():
    assert isinstance(
        rules.SYSTEMS["conductor"].standard_probability(skill=2, difficulty=7), Fraction
    )
    dist = rules.SYSTEMS["two_dice"].check_distribution(attribute=8, difficulty="Normal")
    assert set(dist) == {"critical_failure", "failure", "success", "critical_success"}
    assert sum(dist.values()) == 1
    row = rules.SYSTEMS["percentile"].chart(120)
    assert (row.band, row.mm) == ("success", 100)


def test_no_module_in_rules_imports_django_channels_or_tabletop():
    offenders = []
    for path in RULES_DIR.rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in {"django", "channels", "tabletop", "random"}:
                    offenders.append(f"{path.name}: {name}")
    # `random` is allowed only as the type of the rng parameter, under TYPE_CHECKING in core.py.
    assert offenders == ["core.py: random"], offenders


def test_importing_rules_does_not_load_django():
    code = "import sys, rules; rules.SYSTEMS; print('django' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
