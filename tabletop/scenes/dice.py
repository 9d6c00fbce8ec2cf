"""The dice a scene's actions roll."""

from __future__ import annotations

from rules.core import Rng, resolve_rng


def game_dice(rng: Rng | None = None) -> Rng:
    """The dice an action rolls: the operating system's CSPRNG (``secrets.SystemRandom``),
    unless the caller passes its own ``rng`` (a test's scripted dice)."""
    return resolve_rng(rng)
