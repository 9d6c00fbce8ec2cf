"""The one scripted-dice helper: tests pass ``rng=Faces(...)`` (or ``d6(...)``) to ``rules/``
functions and actions; an action run through a socket gets its dice from ``script_dice``."""

from __future__ import annotations

from typing import Any


class Faces:
    """Deals the given faces in order. A face is a number (it must fit the die asked for) or a
    ``(sides, face)`` pair (the rule must ask for exactly that die)."""

    def __init__(self, *faces: int | tuple[int, int]) -> None:
        self.faces = list(faces)

    def randint(self, low: int, high: int) -> int:
        assert self.faces, "the rule rolled more dice than the test scripted"
        face = self.faces.pop(0)
        if isinstance(face, tuple):
            sides, face = face
            assert (low, high) == (1, sides), f"expected a d{sides}, the rule rolled d{high}"
        assert low <= face <= high, f"a d{high} cannot show {face}"
        return face

    @property
    def left(self) -> int:
        """How many scripted faces the rule did not roll."""
        return len(self.faces)


def dice(sides: int, *values: int) -> Faces:
    """Faces that must each be rolled on a d``sides``: ``dice(6, 6, 2)``."""
    return Faces(*((sides, v) for v in values))


def d6(*values: int) -> Faces:
    return dice(6, *values)


class Always:
    """Every die shows ``face``, or its highest face when ``face`` is None (every check passes);
    counts its rolls. Safe to share between threads."""

    def __init__(self, face: int | None = None) -> None:
        self.face = face
        self.calls = 0

    def randint(self, low: int, high: int) -> int:
        self.calls += 1
        return high if self.face is None else self.face


def script_dice(monkeypatch: Any, rng: Any) -> Any:
    """Actions run through a socket or a command take the production dice
    (``tabletop.scenes.dice.game_dice``); this makes them take ``rng`` instead."""

    from tabletop.scenes import dice

    monkeypatch.setattr(dice, "game_dice", lambda given=None: rng if given is None else given)
    return rng
