"""The one table of the dice language's spellings (as Foundry's ``Die.MODIFIERS``).

Every modifier written after dice (``4d6kh3``, ``1d20rr1``, ``8d6>3``) or after a set
(``{1d20, 1d20}kh1``) is a row of ``MODIFIERS``: its spelling, the construct it builds, the stage
of a die's life it belongs to (a die is rerolled, then explodes, then is clamped, then kept or
dropped, then counted; modifiers are written in that order), the reference it comes from and how
that reference reads a comparison after it. The parser (``parser.py``) looks spellings up here,
longest first; it has no branch per spelling.

Where the references disagree (issue 36: pick one, say so, accept the other spelling where it is
unambiguous), each spelling keeps its own reference's meaning:

- ``>N`` and ``<N`` after ``!``, ``!!``, ``!p``, ``r``, ``ro``, ``f`` and a bare success target
  (``8d6>3``) are Roll20's: **N or more / N or less**. After ``x``, ``xo``, ``e``, ``rr``, ``ra``,
  ``cs``, ``cf``, ``df`` and d20's selectors (``k>3``, ``p<3``) they are Foundry's and d20's:
  **strictly** more / less. The canonical text (on the card) always says ``>=``/``<=``/``=``.
- ``r`` rerolls until the die misses (Roll20); Foundry's ``r`` rerolls once: write ``ro``.
- ``k3`` keeps the 3 highest (Roll20, Foundry); d20's literal ``k3`` (keep the 3s) is ``k=3``.
- ``!N`` explodes on N or more (this table's old dialect); ``xN`` and ``eN`` on exactly N.
- A bare comparison written right after dice or a set, with no space (``8d6>3``), counts
  successes (Roll20); after a space (``1d20+5 >= 15``) it compares the whole total (d20).
"""

from __future__ import annotations

from typing import NamedTuple

# Stages, in the order a die lives through them (and modifiers must be written).
REROLL, EXPLODE, CLAMP, KEEP, COUNT = 1, 2, 3, 4, 5
STAGE_NAMES = {
    REROLL: "rerolls",
    EXPLODE: "explosions",
    CLAMP: "min/max",
    KEEP: "keep/drop",
    COUNT: "success counting",
}


class Spelling(NamedTuple):
    """One modifier spelling.

    ``construct``: reroll, explode, min, max, keep, select, success, failure.
    ``kind``: the construct's variant (``until``, ``compound``, ``kh``, ``subtract`` ...).
    ``argument``: ``count`` (an optional number of dice, default 1), ``condition`` (an optional
    comparison), ``number`` (a required number).
    ``strict``: whether ``>N``/``<N`` after it mean strictly more/less.
    ``bare``: what a bare number means (``=``: exactly; ``>=``: that or more).
    ``default``: the faces meant when nothing follows (``max``, ``min``) or None (required).
    ``on_sets``: also allowed after a set ``{...}``.
    """

    text: str
    construct: str
    kind: str
    stage: int
    argument: str
    source: str
    strict: bool = False
    bare: str = "="
    default: str | None = None
    on_sets: bool = False


MODIFIERS: tuple[Spelling, ...] = (
    # rerolls
    Spelling("r", "reroll", "until", REROLL, "condition", "Roll20", default="min"),
    Spelling("rr", "reroll", "until", REROLL, "condition", "Foundry, d20", True, default="min"),
    Spelling("ro", "reroll", "once", REROLL, "condition", "Roll20, d20", default="min"),
    # explosions
    Spelling("!", "explode", "add", EXPLODE, "condition", "Roll20", bare=">=", default="max"),
    Spelling("!!", "explode", "compound", EXPLODE, "condition", "Roll20", bare=">=", default="max"),
    Spelling("!p", "explode", "penetrate", EXPLODE, "condition", "Roll20", bare=">=",
             default="max"),
    Spelling("x", "explode", "add", EXPLODE, "condition", "Foundry", True, default="max"),
    Spelling("xo", "explode", "once", EXPLODE, "condition", "Foundry", True, default="max"),
    Spelling("e", "explode", "add", EXPLODE, "condition", "d20", True, default="max"),
    Spelling("ra", "explode", "one", EXPLODE, "condition", "d20", True, default="min"),
    # min / max per face
    Spelling("mi", "min", "min", CLAMP, "number", "d20"),
    Spelling("min", "min", "min", CLAMP, "number", "Foundry"),
    Spelling("ma", "max", "max", CLAMP, "number", "d20"),
    Spelling("max", "max", "max", CLAMP, "number", "Foundry"),
    # keep and drop, by rank or (d20's selectors) by face
    Spelling("k", "keep", "kh", KEEP, "count", "Roll20, Foundry", on_sets=True),
    Spelling("kh", "keep", "kh", KEEP, "count", "Roll20, Foundry, d20", on_sets=True),
    Spelling("kl", "keep", "kl", KEEP, "count", "Roll20, Foundry, d20", on_sets=True),
    Spelling("d", "keep", "dl", KEEP, "count", "Roll20, Foundry", on_sets=True),
    Spelling("dl", "keep", "dl", KEEP, "count", "Roll20, Foundry", on_sets=True),
    Spelling("dh", "keep", "dh", KEEP, "count", "Roll20, Foundry", on_sets=True),
    Spelling("pl", "keep", "dl", KEEP, "count", "d20", on_sets=True),
    Spelling("ph", "keep", "dh", KEEP, "count", "d20", on_sets=True),
    Spelling("p", "select", "drop", KEEP, "condition", "d20", True, on_sets=True),
    # counting successes (and failures)
    Spelling("cs", "success", "count", COUNT, "condition", "Foundry", True, default="max",
             on_sets=True),
    Spelling("cf", "failure", "count", COUNT, "condition", "Foundry", True, default="min",
             on_sets=True),
    Spelling("df", "failure", "subtract", COUNT, "condition", "Foundry", True, default="min",
             on_sets=True),
    Spelling("f", "failure", "subtract", COUNT, "condition", "Roll20", default="min",
             on_sets=True),
)  # fmt: skip

#: A comparison written straight after dice or a set (no space): Roll20's success target.
BARE_SUCCESS = Spelling("", "success", "count", COUNT, "condition", "Roll20", on_sets=True)

#: After ``k`` or ``d`` a comparison selects by face (d20's literal selectors, strict).
SELECT_AFTER = {"k": "keep", "d": "drop"}

#: Words that stand alone: functions, and Avrae's advantage words.
FUNCTIONS = ("floor", "ceil", "round", "abs")
ADVANTAGE = {"adv": "kh", "dis": "kl", "advantage": "kh", "disadvantage": "kl"}

#: Longest first, so ``!!`` is found before ``!`` and ``max`` before ``ma``.
BY_LENGTH = tuple(sorted(MODIFIERS, key=lambda s: -len(s.text)))
#: By first character, longest first (the parser looks at one character, then these).
BY_FIRST: dict[str, tuple[Spelling, ...]] = {
    ch: tuple(s for s in BY_LENGTH if s.text[0] == ch) for ch in {s.text[0] for s in MODIFIERS}
}
#: Every word the language knows, for "did you mean".
WORDS = tuple(sorted({s.text for s in MODIFIERS} | set(FUNCTIONS) | set(ADVANTAGE)))
