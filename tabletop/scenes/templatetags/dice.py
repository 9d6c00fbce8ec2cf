"""Dice on roll cards: how each die type is drawn and what a die says it shows.

Every system's card draws its dice with ``{% die %}``, so a d6 looks the
same in every game, and a kept, dropped, exploded or raised die is marked the same way: by its
drawing and by words under it, which are also its screen-reader label. What a system's dice say
beyond that (a d100's sign, a benny's raise) the system reads itself (``System.read_die``,
``{% die d reading="<slug>" %}``). Cards read stored events, old ones too: a missing or odd
value never breaks a card, the die shows "?".
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from html import escape  # Django's escape is this, behind a lazy-string check per call
from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from tabletop import systems
from tabletop.scenes import spoken

register = template.Library()

#: Outlines (viewBox 0 0 100 100) by number of sides; a die of any other size is drawn round.
OUTLINES: dict[int, str] = {
    4: "50,6 95,90 5,90",
    6: "20,7 80,7 93,20 93,80 80,93 20,93 7,80 7,20",
    8: "50,3 96,50 50,97 4,50",
    10: "50,3 96,42 50,97 4,42",
    12: "50,4 96,37 78,94 22,94 4,37",
    20: "50,3 94,27 94,73 50,97 6,73 6,27",
}
#: Edges drawn inside an outline, so a d10 isn't taken for a d8, nor a d20 for a d6.
FACETS: dict[int, str] = {
    10: "M4 42 L50 80 L96 42 M50 80 L50 97",
    20: "M50 3 L50 18 M94 27 L83 30 M94 73 L50 97 L6 73 M6 27 L17 30 M17 30 L50 18 L83 30",
}
#: The d100 read as two d10s: a tens die (00-90) and a units die (0-9).
PERCENTILE = 100

#: Outcome band names (every system's ``outcome``) by the tone of their badge.
TONES: dict[str, str] = {
    "critical_success": "great",
    "extraordinary_success": "great",
    "success": "good",
    "partial_success": "partial",
    "near_success": "partial",
    "unrelated_success": "partial",
    "failure": "bad",
    "critical_failure": "dire",
    "extraordinary_failure": "dire",
    "fumble": "dire",
    "botch": "dire",
}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _face(sides: int | None, text: str) -> dict[str, str]:
    return {
        "text": text,
        "outline": OUTLINES.get(sides or 0, ""),
        "facets": FACETS.get(sides or 0, ""),
    }


def die_view(
    d: Any = None,
    *,
    sides: Any = None,
    value: Any = None,
    keeps: bool = False,
    mark: str = "",
    tone: str = "",
    reading: str = "",
) -> dict[str, Any]:
    """What ``{% die %}`` draws for one die.

    ``d``: a die as stored (``rules.core.Die.to_dict()``); or ``sides`` and ``value`` for a bare
    number (a chain die, a penalty die). ``keeps``: the roll kept some dice and dropped others,
    so a kept die says "kept". ``mark``: the card's word for this die ("hit", "no success"),
    ``tone`` its colour ("good", "bad"). ``reading``: the slug of the system whose words the die
    is stored in (its ``read_die``)."""
    d = d if isinstance(d, Mapping) else {}
    own: tuple[tuple[str, str], ...] = ()
    system = systems.find(reading) if reading else None
    if system is not None and system.read_die is not None:
        read = system.read_die(d)
        d, own = read.die, read.marks
    shown = _int(d.get("value", value))
    count_sides = _int(d.get("sides", sides))
    if count_sides is None:
        count_sides = _int(sides)
    notes, states = _what_befell(d, keeps=keeps, mark=mark, own=own)
    text = "?" if shown is None else str(shown)
    faces, caption, shape = _faces_of(shown, count_sides, text, notes)
    classes = ["die", f"die-{shape}", *states]
    if tone in ("good", "bad"):
        classes.append(f"tone-{tone}")
    return {
        "faces": faces,
        "caption": caption,
        "label": ", ".join([text, *notes]),
        "classes": " ".join(classes),
        "sides": count_sides,
    }


def _what_befell(
    d: Mapping[str, Any], *, keeps: bool, mark: str, own: tuple[tuple[str, str], ...]
) -> tuple[list[str], list[str]]:
    """What happened to the die, twice: the words under it (its label's too) and the states
    its drawing is marked with (dropped, kept, exploded, raised, extra, a system's own)."""
    notes: list[str] = []
    states: list[str] = []
    if "kept" in d and not d["kept"]:
        notes.append("dropped")
        states.append("dropped")
    elif keeps:
        notes.append("kept")
        states.append("kept")
    if mark:
        notes.append(mark)
    if d.get("exploded"):
        notes.append("exploded")
        states.append("exploded")
    # the dice box's dice (rules.expression): faces rerolled away, a compounded chain, a face
    # that counts otherwise than it shows (min/max, a penetrating explosion's die)
    rerolled = d.get("rerolled")
    if isinstance(rerolled, list) and rerolled:
        notes.append("rerolled " + ", ".join(str(r) for r in rerolled if _int(r) is not None))
        states.append("rerolled")
    chain = d.get("chain")
    if isinstance(chain, list) and len(chain) > 1:
        notes.append("compounded " + " + ".join(str(f) for f in chain if _int(f) is not None))
    elif (
        "chain" in d
        and not d.get("bonus")
        and _int(d.get("rolled")) is not None
        and d.get("rolled") != d.get("value")
    ):
        notes.append(f"rolled {d.get('rolled')}")
    for words, state in own:
        notes.append(words)
        states.append(state)
    bonus, rolled = _int(d.get("bonus")), _int(d.get("rolled"))
    if bonus:
        notes.append(f"rolled {rolled} +{bonus}" if rolled is not None else f"+{bonus}")
        states.append("raised")
    source = _int(d.get("source"))
    if source is not None:
        notes.append(f"from die {source + 1}")
        states.append("extra")
    return notes, states


def _faces_of(
    shown: int | None, sides: int | None, text: str, notes: list[str]
) -> tuple[list[dict[str, str]], str, str]:
    """The die's faces, its caption and its shape: a d100 is two d10s whose caption reads the
    pair; any other die one face of its outline (round for a size with none)."""
    if sides == PERCENTILE and shown is not None and 1 <= shown <= PERCENTILE:
        # 100 is 00 on the tens die and 0 on the units die; 7 is 00 and 7.
        faces = [_face(10, f"{shown // 10 % 10}0"), _face(10, str(shown % 10))]
        return faces, ", ".join([text, *notes]), "d100"  # the caption reads the pair
    shape = f"d{sides}" if sides in OUTLINES else "round"
    return [_face(sides, text)], ", ".join(notes), shape


@register.simple_tag
def die(d: Any = None, **options: Any) -> str:
    """``{% die d %}``, ``{% die d keeps=True %}``, ``{% die d mark="hit" tone="good" %}``,
    ``{% die sides=12 value=7 %}``: one die, drawn and labelled (``die_view`` takes the
    options and refuses an unknown one). Its label is the words it shows: the value, then what
    happened to it; the words are drawn under the die too. Written here, not in a template: a
    card of twenty dice rendered twenty templates (bench/README.md)."""
    view = die_view(d, **options)
    faces = "".join(_face_html(face) for face in view["faces"])
    caption = view["caption"]
    caption_html = f'<span class="die-caption">{escape(caption)}</span>' if caption else ""
    return mark_safe(  # noqa: S308 - every value below is escaped
        f'<span class="{escape(view["classes"])}" role="img" aria-label="{escape(view["label"])}">'
        f'<span class="die-faces">{faces}</span>{caption_html}</span>'
    )


def _face_html(face: dict[str, str]) -> str:
    return _drawn_face(face["outline"], face["facets"], face["text"])


@lru_cache(maxsize=2048)
def _drawn_face(outline: str, facets: str, text: str) -> str:
    # A card draws the same few faces over and over (a d6 showing 4): each drawn once.
    shape = (
        f'<polygon class="die-outline" points="{escape(outline)}"/>'
        if outline
        else '<circle class="die-outline" cx="50" cy="50" r="46"/>'
    )
    edges = f'<path class="die-facet" d="{escape(facets)}"/>' if facets else ""
    return (
        '<span class="die-body"><svg class="die-shape" viewBox="0 0 100 100" aria-hidden="true"'
        f' focusable="false">{shape}{edges}</svg>'
        f'<span class="die-num">{escape(text)}</span></span>'
    )


@register.filter
def has_dropped(dice: Any) -> bool:
    """Whether a pool dropped any die (then its kept dice say "kept")."""
    if not isinstance(dice, list | tuple):
        return False
    return any(isinstance(d, Mapping) and "kept" in d and not d["kept"] for d in dice)


def _formula_die(d: Any) -> str:
    if not isinstance(d, Mapping):
        return "?"
    value = _int(d.get("value"))
    face = ("?" if value is None else str(value)) + ("!" if d.get("exploded") else "")
    if "kept" in d and not d["kept"]:
        return f'<s class="dropped">{face}<span class="visually-hidden"> dropped</span></s>'
    return face


@register.filter
def dice_formula(result: Any) -> SafeString:
    """A dice-box roll's formula, "4d6kh3 (5, 1, 3, 6) = 14", from its stored terms and dice: a
    dropped die struck through (``<s class="dropped">``, "dropped" for a screen reader), an
    exploded one "6!". Not the stored ``breakdown``, which marks a dropped die in Markdown
    (``~~1~~``, avrae/d20's plain text) that a card would show as typed. Odd or missing values
    show "?"; no terms, no formula."""
    if not isinstance(result, Mapping):
        return mark_safe("")
    terms = result.get("terms")
    if not isinstance(terms, list | tuple):
        return mark_safe("")
    parts: list[str] = []
    for term in terms:
        if not isinstance(term, Mapping):
            continue
        sign = _int(term.get("sign"))
        minus = sign is not None and sign < 0
        text = term.get("text")
        shown = escape(text) if isinstance(text, str) and text else "?"
        dice = term.get("dice")
        if isinstance(dice, list | tuple) and dice:
            shown += f" ({', '.join(_formula_die(d) for d in dice)})"
        multiplier = _int(term.get("multiplier"))
        if multiplier is not None and multiplier != 1:
            shown += f" * {multiplier}"
        if parts:
            parts.append(f"{'-' if minus else '+'} {shown}")
        else:
            parts.append(f"-{shown}" if minus else shown)
    if not parts:
        return mark_safe("")
    total = _int(result.get("total"))
    line = " ".join(parts) + ("" if total is None else f" = {total}")
    return mark_safe(line)  # noqa: S308 - the term texts are escaped, the rest is numbers and ours


@register.filter
def dice_head(dice: Any, count: Any) -> list[Any]:
    """The first ``count`` dice (a check's own dice, before its training dice); all of them
    without a count."""
    if not isinstance(dice, list | tuple):
        return []
    n = _int(count)
    return list(dice[:n]) if n is not None and n >= 0 else list(dice)


@register.filter
def dice_tail(dice: Any, count: Any) -> list[Any]:
    """The dice after the first ``count`` (a check's training dice, after its own dice), none
    without a count."""
    n = _int(count)
    return list(dice[n:]) if isinstance(dice, list | tuple) and n is not None and n >= 0 else []


@register.filter
def outcome_tone(outcome: Any) -> str:
    """The badge colour of an outcome band: great, good, partial, bad, dire or plain."""
    return TONES.get(outcome, "plain") if isinstance(outcome, str) else "plain"


@register.filter
def outcome_label(data: Any) -> str:
    """The badge's words: the system's own label for the band when it stored one, else the
    band's name ("critical_failure" -> "Critical failure")."""
    if not isinstance(data, Mapping):
        return ""
    result = data.get("result")
    label = result.get("band_label") if isinstance(result, Mapping) else None
    if isinstance(label, str) and label:
        return label
    outcome = data.get("outcome")
    return outcome.replace("_", " ").capitalize() if isinstance(outcome, str) else ""


@register.filter
def roll_odds(odds: Any) -> dict[str, str] | None:
    """A roll's stored odds (``rollkinds.headline_odds``), or None: rolls stored before odds
    were, or anything else in their place, show no odds line."""
    if not isinstance(odds, Mapping):
        return None
    percent, goal = odds.get("percent"), odds.get("goal")
    if not isinstance(percent, str) or not percent or not isinstance(goal, str):
        return None
    return {"percent": percent, "goal": goal}


@register.filter
def spoken_roll(data: Any) -> str:
    """A roll card's line for the ear (tabletop/scenes/spoken.py): who, what, result, outcome."""
    if not isinstance(data, Mapping):
        return ""
    return spoken.roll_line(data, outcome_label(data))
