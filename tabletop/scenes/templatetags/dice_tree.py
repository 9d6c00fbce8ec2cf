"""The dice box's card: a rolled expression's result tree (``rules.expression``'s
``ExpressionResult.to_dict()["root"]``) drawn as dice, and as one formula line.

One rendering layer, as avrae/d20's stringifiers: a function per kind of node (``_DRAW`` for the
dice drawn, ``_LINE`` for the formula), each escaping what it prints. Nested groups, sets, dropped,
kept, rerolled and exploded dice, each counted die's success or failure, labels and a
comparison's outcome all come from the stored tree; an odd or missing value shows "?", never an
error (cards read stored events, old ones too).
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape  # Django's escape is this, behind a lazy-string check per call
from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from rules.expression.reference import REFERENCE
from tabletop.scenes.templatetags.dice import die

register = template.Library()

_OPS = {">=": "≥", "<=": "≤", ">": ">", "<": "<", "==": "="}
HIDDEN = '<span class="visually-hidden">{}</span>'


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(node: Mapping[str, Any]) -> str:
    text = node.get("text")
    return escape(text) if isinstance(text, str) and text else "?"


def _value(node: Mapping[str, Any]) -> str:
    value = _int(node.get("value"))
    return "?" if value is None else str(value)


def _op(text: str) -> str:
    return f'<span class="term-op">{text}</span>'


def _children(node: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    items = node.get(key)
    return [i for i in items if isinstance(i, Mapping)] if isinstance(items, list) else []


def _signs(node: Mapping[str, Any], count: int) -> list[int]:
    signs = node.get("signs")
    if isinstance(signs, list) and len(signs) == count:
        return [-1 if _int(s) is not None and s < 0 else 1 for s in signs]
    return [1] * count


# --- the dice drawn -------------------------------------------------------------------------------


def _die_options(d: Any, keeps: bool) -> dict[str, Any]:
    counted = _int(d.get("counted")) if isinstance(d, Mapping) else None
    if counted == 1:
        return {"keeps": keeps, "mark": "success", "tone": "good"}
    if counted == -1:
        return {"keeps": keeps, "mark": "failure, −1", "tone": "bad"}
    if counted == 0:
        return {"keeps": keeps, "mark": "no success", "tone": "bad"}
    return {"keeps": keeps}


def _draw_dice(node: Mapping[str, Any], wrap: int) -> str:
    dice = node.get("dice") if isinstance(node.get("dice"), list) else []
    keeps = any(isinstance(d, Mapping) and d.get("kept") is False for d in dice)
    items = "".join(f"<li>{die(d, **_die_options(d, keeps))}</li>" for d in dice)
    dense = " dense" if len(dice) > 12 else ""
    row = f'<ol class="dice-row{dense}" aria-label="{_text(node)}">{items}</ol>'
    count = node.get("count")
    if isinstance(count, Mapping):  # a rolled number of dice: "(1d4 + 1)d6"
        text = node.get("text") if isinstance(node.get("text"), str) else ""
        sides = escape(text[text.rfind(")") + 1 :]) if ")" in text else ""
        row = _op("(") + _draw(count, 0) + _op(f"){sides}") + row
    if not dice and not isinstance(count, Mapping):
        row = f'<span class="term-constant">{_text(node)}</span>'
    return f'<span class="dice-term">{row}</span>'


def _draw_sum(node: Mapping[str, Any], wrap: int) -> str:
    terms = _children(node, "terms")
    parts = []
    for i, (sign, term) in enumerate(zip(_signs(node, len(terms)), terms, strict=True)):
        if sign < 0:
            parts.append(_op("−"))
        elif i:
            parts.append(_op("+"))
        parts.append(_draw(term, 1))
    inner = "".join(parts)
    return _op("(") + inner + _op(")") if wrap >= 2 and len(terms) > 1 else inner


def _draw_operation(node: Mapping[str, Any], wrap: int) -> str:
    left, right = node.get("left"), node.get("right")
    op = "×" if node.get("kind") == "multiply" else "÷"
    inner = (
        (_draw(left, 2) if isinstance(left, Mapping) else "?")
        + _op(op)
        + (_draw(right, 3) if isinstance(right, Mapping) else "?")
    )
    rounding = node.get("rounding")
    if node.get("kind") == "divide" and rounding in ("ceil", "round"):
        return _op(f"{rounding}(") + inner + _op(")")
    return inner


def _draw_set(node: Mapping[str, Any], wrap: int) -> str:
    items = _children(node, "items")
    kept = node.get("kept") if isinstance(node.get("kept"), list) else []
    counted = node.get("counted") if isinstance(node.get("counted"), list) else []
    parts = []
    for i, item in enumerate(items):
        dropped = i < len(kept) and kept[i] is False
        score = _int(counted[i]) if i < len(counted) else None
        words = ["dropped"] if dropped else []
        if score == 1:
            words.append("success")
        elif score == -1:
            words.append("failure")
        state = " dropped" if dropped else ""
        state += " tone-good" if score == 1 else " tone-bad" if score in (0, -1) else ""
        note = f'<span class="set-note">{", ".join(words)}</span>' if words else ""
        parts.append(f'<span class="set-item{state}">{_draw(item, 0)}{note}</span>')
    text = node.get("text") if isinstance(node.get("text"), str) else ""
    suffix = escape(text[text.rfind("}") + 1 :]) if "}" in text else ""
    return (
        '<span class="dice-set">'
        + _op("{")
        + _op(",").join(parts)
        + _op("}" + suffix)
        + f'<span class="term-op">= {_value(node)}</span></span>'
    )


def _draw_compare(node: Mapping[str, Any], wrap: int) -> str:
    left, right = node.get("left"), node.get("right")
    if not isinstance(left, Mapping) or not isinstance(right, Mapping):
        return "?"
    success = node.get("success") is True
    op = _OPS.get(node.get("op"), "?")
    outcome = "success" if success else "failure"
    return (
        _draw(left, 0)
        + _op(f"= {_value(left)} {op}")
        + _draw(right, 0)
        + f'<span class="compare-outcome tone-{"good" if success else "bad"}">{outcome}</span>'
    )


_DRAW = {
    "number": lambda node, wrap: f'<span class="term-constant">{_text(node)}</span>',
    "dice": _draw_dice,
    "sum": _draw_sum,
    "multiply": _draw_operation,
    "divide": _draw_operation,
    "set": _draw_set,
    "abs": lambda node, wrap: _op("abs(") + _draw(node.get("operand"), 0) + _op(")"),
    "label": lambda node, wrap: (
        _draw(node.get("operand"), 3)
        + f'<span class="dice-label">{escape(str(node.get("label", "")))}</span>'
    ),
    "compare": _draw_compare,
}


def _draw(node: Any, wrap: int) -> str:
    if not isinstance(node, Mapping) or node.get("kind") not in _DRAW:
        return '<span class="term-constant">?</span>'
    return _DRAW[node["kind"]](node, wrap)


@register.filter
def dice_tree(result: Any) -> SafeString:
    """A dice-box roll's result tree, drawn: each term's dice with what befell them, operators
    between, sets with their dropped items struck, labels as tags, a comparison's outcome. Empty
    for a result stored before the tree (the card draws its terms instead)."""
    if not isinstance(result, Mapping) or not isinstance(result.get("root"), Mapping):
        return mark_safe("")
    return mark_safe(f'<div class="dice-terms dice-expr">{_draw(result["root"], 0)}</div>')  # noqa: S308 - escaped above


# --- the formula line -------------------------------------------------------------------------


def _line_die(d: Any) -> str:
    if not isinstance(d, Mapping):
        return "?"
    value = _int(d.get("value"))
    face = ("?" if value is None else str(value)) + ("!" if d.get("exploded") else "")
    counted = _int(d.get("counted"))
    if counted == 1:
        face += "✓" + HIDDEN.format(" success")
    elif counted == -1:
        face += "✗" + HIDDEN.format(" failure")
    if d.get("kept") is False:
        face = f'<s class="dropped">{face}{HIDDEN.format(" dropped")}</s>'
    rerolled = d.get("rerolled")
    if isinstance(rerolled, list) and rerolled:
        struck = " ".join(
            f'<s class="dropped">{escape(str(r))}{HIDDEN.format(" rerolled")}</s>' for r in rerolled
        )
        face = f"{struck} {face}"
    return face


def _line(node: Any, wrap: int = 0) -> str:
    if not isinstance(node, Mapping):
        return "?"
    kind = node.get("kind")
    if kind == "number":
        return _text(node)
    if kind == "dice":
        dice = node.get("dice") if isinstance(node.get("dice"), list) else []
        head = _text(node)
        count = node.get("count")
        if isinstance(count, Mapping):
            text = str(node.get("text") or "")
            head = f"({_line(count)})" + escape(text[text.rfind(")") + 1 :])
        return f"{head} ({', '.join(_line_die(d) for d in dice)})"
    if kind == "sum":
        terms = _children(node, "terms")
        parts = []
        for i, (sign, term) in enumerate(zip(_signs(node, len(terms)), terms, strict=True)):
            inner = _line(term, 1)
            parts.append((f"- {inner}" if sign < 0 else f"+ {inner}") if i else
                         (f"-{inner}" if sign < 0 else inner))  # fmt: skip
        text = " ".join(parts)
        return f"({text})" if wrap >= 1 and (len(parts) > 1 or wrap >= 2) else text
    if kind in ("multiply", "divide"):
        op = " * " if kind == "multiply" else " / "
        text = _line(node.get("left"), 2) + op + _line(node.get("right"), 3)
        rounding = node.get("rounding")
        if kind == "divide" and rounding in ("ceil", "round"):
            return f"{rounding}({text})"
        return f"({text})" if wrap >= 3 else text
    if kind == "set":
        items = _children(node, "items")
        kept = node.get("kept") if isinstance(node.get("kept"), list) else []
        parts = []
        for i, item in enumerate(items):
            shown = _line(item)
            if i < len(kept) and kept[i] is False:
                shown = f'<s class="dropped">{shown}{HIDDEN.format(" dropped")}</s>'
            parts.append(shown)
        text = str(node.get("text") or "")
        suffix = escape(text[text.rfind("}") + 1 :]) if "}" in text else ""
        return "{" + ", ".join(parts) + "}" + suffix + f" ({_value(node)})"
    if kind == "abs":
        return f"abs({_line(node.get('operand'))})"
    if kind == "label":
        return f"{_line(node.get('operand'), 3)} [{escape(str(node.get('label', '')))}]"
    if kind == "compare":
        left = node.get("left")
        value = _value(left) if isinstance(left, Mapping) else "?"
        op = escape(str(node.get("op", "?")))
        outcome = "success" if node.get("success") is True else "failure"
        return f"{_line(left)} = {value} {op} {_line(node.get('right'))}: {outcome}"
    return "?"


@register.filter
def dice_tree_formula(result: Any) -> SafeString:
    """The formula line of a result with a tree: ``4d6kh3 (5, <s>1</s>, 3, 6) = 14``, a dropped
    die struck through and said "dropped" to a screen reader; a comparison ends with its
    outcome instead of the total. Empty without a tree."""
    if not isinstance(result, Mapping) or not isinstance(result.get("root"), Mapping):
        return mark_safe("")
    root = result["root"]
    line = _line(root)
    if not (isinstance(root, Mapping) and root.get("kind") == "compare"):
        total = _int(result.get("total"))
        line += "" if total is None else f" = {total}"
    return mark_safe(line)  # noqa: S308 - every text above is escaped, the rest numbers


@register.simple_tag
def dice_box_examples() -> list[str]:
    """An example of each group of the dice reference (``rules.expression.REFERENCE``), for the
    dice box's quick fill."""
    first: dict[str, str] = {}
    for entry in REFERENCE:
        first.setdefault(entry.group, entry.examples[0])
    return list(first.values())
