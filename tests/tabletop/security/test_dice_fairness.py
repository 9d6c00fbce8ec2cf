"""Game dice come from the operating system's CSPRNG, are fair, and nothing else can sneak in.

The chi-square tests roll the PRODUCTION path (no seed: ``rules.core.resolve_rng(None)``, i.e.
``secrets.SystemRandom``) for every die size the five systems use. The threshold p < 1e-6 makes
a false failure negligible (about 7 in a million runs for the seven sizes), and the loaded-die
checks prove the same test, with the same roll counts, catches a die biased by a quarter.
"""

from __future__ import annotations

import ast
import random
import secrets
import subprocess
import sys
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from rules import (
    annulus,
    conductor,
    core,
    percentile,
    roll_and_keep,
    two_dice,
)
from rules import expression as dice_expression
from rules.conductor import wilderness_rolls as conductor_wilderness
from tests.rules.stats import chi_square_p_value

ROOT = Path(__file__).resolve().parents[3]
SIZES = [4, 6, 8, 10, 12, 20, 100]
SIGNIFICANCE = 1e-6


def rolls_for(sides: int) -> int:
    """A few thousand rolls; at least 60 expected per face, so every face is its own cell."""
    return max(3000, 60 * sides)


def fair(sides: int) -> dict[int, Fraction]:
    return {face: Fraction(1, sides) for face in range(1, sides + 1)}


def test_the_five_systems_use_only_the_tested_die_sizes():
    used = {
        annulus.FACES,
        annulus.DEFAULT_RULESET["check_die_sides"],
        annulus.DEFAULT_RULESET["mask_die_sides"],
        conductor.STANDARD_DIE,
        conductor.ATTACK_DIE,
        conductor_wilderness.WILDERNESS_DIE,
        roll_and_keep.SIDES,
        two_dice.DIE_SIDES,
        100,  # percentile's open-ended d100 (roll_die(100, rng))
    }
    assert used <= set(SIZES)


def test_production_dice_source_is_the_os_csprng():
    assert isinstance(core.default_rng(), secrets.SystemRandom)
    assert isinstance(core.resolve_rng(None), secrets.SystemRandom)
    seeded = random.Random(7)
    assert core.resolve_rng(seeded) is seeded  # tests (and only tests) pass their own


@pytest.mark.parametrize(
    "roll",
    [
        lambda: dice_expression.roll("3d6"),
        lambda: conductor.standard_roll(skill=2, difficulty=8),
        lambda: conductor.attack(skill=2, difficulty=4),
        lambda: percentile.roll_open_ended(),
    ],
    ids=["expression", "conductor-standard", "conductor-attack", "percentile"],
)
def test_roll_functions_without_an_rng_draw_from_system_random(monkeypatch, roll):
    draws = []
    real = secrets.SystemRandom.getrandbits

    def counting(self, k):
        draws.append(k)
        return real(self, k)

    monkeypatch.setattr(secrets.SystemRandom, "getrandbits", counting)
    roll()
    assert draws  # randint on SystemRandom ends in getrandbits, i.e. os.urandom


@pytest.mark.parametrize("sides", SIZES)
def test_production_dice_are_fair(sides):
    rolls = (core.roll_die(sides, core.resolve_rng(None)) for _ in range(rolls_for(sides)))
    assert chi_square_p_value(rolls, fair(sides)) > SIGNIFICANCE


@pytest.mark.parametrize("sides", SIZES)
def test_the_fairness_check_catches_a_die_loaded_by_a_quarter(sides):
    # A quarter of the low half's results move to the high half: low faces come up 0.75x, high
    # faces 1.25x as often. Seeded, so this check is deterministic.
    rng = random.Random(sides)

    def loaded() -> int:
        face = rng.randint(1, sides)
        if face <= sides // 2 and rng.random() < 0.25:
            face = rng.randint(sides // 2 + 1, sides)
        return face

    rolls = (loaded() for _ in range(rolls_for(sides)))
    assert chi_square_p_value(rolls, fair(sides)) < SIGNIFICANCE


def test_ruff_config_enforces_s311_outside_tests_and_benchmarks():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert "S311" in config["select"]
    waived = {path for path, rules in config["per-file-ignores"].items() if "S311" in rules}
    assert waived <= {"tests/**", "bench/**"}


def ruff(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "S311", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_no_game_code_uses_a_non_cryptographic_random():
    result = ruff("rules", "tabletop")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_flags_a_non_cryptographic_die_in_game_code():
    # The check above must be able to fail: the same rule on a die rolled with `random`.
    bad = "import random\n\n\ndef roll():\n    return random.randint(1, 6)\n"
    result = ruff("--stdin-filename", "tabletop/scenes/new_die.py", "-", stdin=bad)
    assert result.returncode != 0
    assert "S311" in result.stdout


def _imports_random(node: ast.AST) -> bool:
    """Any `import random` / `from random import …` outside `if TYPE_CHECKING:` (where it only
    names the type of the ``rng`` parameter)."""
    if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
        return any(_imports_random(child) for child in node.orelse)
    if isinstance(node, ast.Import) and any(a.name == "random" for a in node.names):
        return True
    if isinstance(node, ast.ImportFrom) and node.module == "random":
        return True
    return any(_imports_random(child) for child in ast.iter_child_nodes(node))


def game_code_importing_random(root: Path) -> list[str]:
    """Files of rules/ and tabletop/ that import the stdlib `random`: a `noqa: S311` would get a
    `random.Random()` past ruff, so the import itself is refused."""
    return [
        str(path.relative_to(root))
        for package in ("rules", "tabletop")
        for path in sorted((root / package).rglob("*.py"))
        if _imports_random(ast.parse(path.read_text()))
    ]


def test_no_game_code_imports_random_even_with_a_noqa():
    assert game_code_importing_random(Path(__file__).resolve().parents[3]) == []


def test_the_import_check_finds_a_random_import(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "tabletop").mkdir()
    (tmp_path / "tabletop" / "beats.py").write_text("import random  # noqa: S311\n")
    (tmp_path / "rules" / "core.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import random\n"
    )
    assert game_code_importing_random(tmp_path) == ["tabletop/beats.py"]
