"""Small helpers for labels built from a noun ("Add an ability", "Choose a colour")."""

from __future__ import annotations

# Words whose first letter misleads: "a unit", "a one-off"; "an hour", "an honest".
_A_BEFORE = ("one", "once", "uni", "use", "usu", "eu", "ewe")
_AN_BEFORE = ("hour", "honest", "honour", "heir")


def a_word(word: str) -> str:
    """``word`` with its indefinite article: "an ability", "a difficulty", "a unit"."""
    folded = word.strip().casefold()
    if folded.startswith(_AN_BEFORE):
        article = "an"
    elif folded.startswith(_A_BEFORE):
        article = "a"
    else:
        article = "an" if folded[:1] in tuple("aeiou") else "a"
    return f"{article} {word}"


def listed(words: list[str]) -> str:
    """Words as a sentence lists them: "bennies", "bennies and hits", "a, b and c"."""
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"
