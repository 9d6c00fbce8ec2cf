"""A card's line for the ear: what a screen reader says when a card arrives ("alice rolled 1d20
plus 5: 18, a hit"), written from the viewer's own card. The breakdown stays on the card, where
it can be read at leisure; the line says who, what, the result and the outcome, short enough to
be heard between two other things at the table (under 120 characters)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

#: A spoken line is cut here (with "…"): a screen reader reads a long one to the end.
LIMIT = 119

#: Signs a line says better in words.
_SIGNS = ((" + ", " plus "), (" - ", " minus "), (" − ", " minus "), (" × ", " times "))


def for_the_ear(text: str) -> str:
    """``text`` with the signs a screen reader skips or mumbles in words ("1d20 + 5" ->
    "1d20 plus 5"), on one line."""
    text = " ".join(str(text).split())
    for sign, words in _SIGNS:
        text = text.replace(sign, words)
    return text


def result_words(summary: str) -> str:
    """The result a summary ends on: what follows its last "=" ("1d20 (13) + 5 = 18" -> "18"),
    or the whole summary when it has none ("Success (45)")."""
    summary = " ".join(str(summary).split())
    _, equals, after = summary.rpartition("= ")
    return for_the_ear(after if equals and after else summary)


def outcome_words(outcome_label: str, result: str) -> str:
    """The outcome's words, lower case, unless the result says them already."""
    label = str(outcome_label).strip()
    if not label or label.lower() in result.lower():
        return ""
    return label[0].lower() + label[1:]


def shorten(line: str) -> str:
    """``line`` cut at LIMIT characters, at a word."""
    line = " ".join(line.split())
    if len(line) <= LIMIT:
        return line
    return line[: LIMIT - 1].rsplit(" ", 1)[0].rstrip(",:;") + "…"


def roll_line(data: Mapping[str, Any], outcome_label: str = "") -> str:
    """A roll seen in full, for the ear: "alice as Kestrel rolled 1d20 plus 5: 18, success"."""
    who = str(data.get("roller") or "Someone")
    character = data.get("character")
    if character and character != who:
        who = f"{who} as {character}"
    what = for_the_ear(str(data.get("title") or data.get("label") or "dice"))
    result = result_words(str(data.get("summary") or ""))
    outcome = outcome_words(outcome_label, result)
    line = f"{who} rolled {what}: {result}" if result else f"{who} rolled {what}"
    line = re.sub(r"\s+:", ":", line)
    return shorten(f"{line}, {outcome}" if outcome else line)
