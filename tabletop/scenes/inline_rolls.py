"""Inline rolls: ``[[1d20+5]]`` inside a chat line, an emote or a whisper rolls where it stands.

The dice are the dice box's language (``rules.expression``, handed the text between the
brackets as it is); the results live in the line's own event, so a whisper's rolls have the
whisper's audience and nobody else ever learns them (``visibility`` filters them with the line).

The line is stored with each roll written in place as its breakdown (``[[1d20 (14) + 5 = 19]]``):
what any text reader shows, the session ledger's exports included. Each roll keeps where it
stands in that text (``at``: its start and end), so the card puts a highlighted total there.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ValidationError

from rules import expression
from rules.core import Rng

#: An inline roll: the text between ``[[`` and its ``]]``, which may hold labels in brackets of
#: their own (``[[2d6+3 [fire]]]``: the label's ``]`` is not the roll's end).
INLINE_ROLL = re.compile(r"\[\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\]")
#: Most inline rolls in one line (a turn's attacks and damage, with room to spare).
MAX_INLINE_ROLLS = 10


def inline_rolls(line: str, *, rng: Rng) -> tuple[str, list[dict[str, Any]]]:
    """The line with each ``[[...]]`` rolled and written in as its breakdown, and the rolls
    (``payloads.InlineRoll``), in the order they stand. A bad one refuses the whole line with
    its expression's message, naming which it was and where it stands; nothing is rolled."""
    found = list(INLINE_ROLL.finditer(line))
    if len(found) > MAX_INLINE_ROLLS:
        raise ValidationError(
            f"A line holds at most {MAX_INLINE_ROLLS} inline rolls ([[...]]); this one has "
            f"{len(found)}."
        )
    results = []
    for number, match in enumerate(found, 1):
        try:
            results.append(expression.roll(match.group(1), rng=rng).to_dict())
        except expression.ExpressionError as error:
            raise ValidationError(
                f"Inline roll {number}, {match.group(0)} at character {match.start() + 1}: {error}"
            ) from None
    text, rolls, end = [], [], 0
    at = 0  # where the next piece starts in the written line
    for match, result in zip(found, results, strict=True):
        text.append(line[end : match.start()])
        at += match.start() - end
        written = f"[[{result['breakdown']}]]"
        text.append(written)
        rolls.append(
            {
                "expression": str(result["expression"]),
                "total": result["total"],
                "at": [at, at + len(written)],
                "result": result,
            }
        )
        at += len(written)
        end = match.end()
    text.append(line[end:])
    return "".join(text), rolls
