"""Dice expressions: the result tree (what was rolled), one class per construct, and its text.

Every result node has ``kind`` (for templates and ``to_dict``), ``text`` (its canonical
spelling) and ``value``. Dice keep every die: rerolled faces, explosions (which die's explosion
added a die), kept or dropped, and for a success pool what each die counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.core import Die, Result


class Breakdown(str):
    """A roll's one-line breakdown (``1d20 (14) + 5 = 19``): a string, also callable
    (``result.breakdown()``) for the callers that read it as a method."""

    __slots__ = ()

    def __call__(self) -> str:
        return str(self)


@dataclass(frozen=True)
class ExprDie(Die):
    """One die of a dice expression: ``rolled`` is the face it landed on (after rerolls),
    ``value`` what it counts (min/max applied; one less for a penetrating explosion's die;
    a compounded die's whole chain); ``rerolled`` the faces it showed before (discarded);
    ``chain`` a compounding die's faces; ``counted`` +1 (success), -1 (failure that
    subtracts), 0, or None when the dice are summed."""

    rerolled: tuple[int, ...] = ()
    chain: tuple[int, ...] = ()
    counted: int | None = None


@dataclass(frozen=True)
class NumberResult(Result):
    kind: str
    text: str
    value: int


@dataclass(frozen=True)
class DiceResult(Result):
    """Dice as rolled; ``count`` is the rolled number of dice's result (``(1d4+1)d6``)."""

    kind: str
    text: str
    value: int
    dice: tuple[ExprDie, ...]
    counting: bool = False
    count: Any = None


@dataclass(frozen=True)
class SetResult(Result):
    """A set's items with which were kept and what each counted (None when summed)."""

    kind: str
    text: str
    value: int
    items: tuple[Any, ...]
    kept: tuple[bool, ...]
    counted: tuple[int | None, ...]


@dataclass(frozen=True)
class TermResult(Result):
    """One signed term of a sum and its signed subtotal."""

    sign: int
    node: Any
    subtotal: int


@dataclass(frozen=True)
class SumResult(Result):
    """Terms added (sign +1) and subtracted (-1): ``signs[i]`` goes with ``terms[i]``."""

    kind: str
    text: str
    value: int
    signs: tuple[int, ...]
    terms: tuple[Any, ...]


@dataclass(frozen=True)
class OperationResult(Result):
    """``multiply`` or ``divide`` (with its ``rounding``) of two results."""

    kind: str
    text: str
    value: int
    left: Any
    right: Any
    rounding: str = "floor"


@dataclass(frozen=True)
class AbsResult(Result):
    kind: str
    text: str
    value: int
    operand: Any


@dataclass(frozen=True)
class LabelResult(Result):
    kind: str
    text: str
    value: int
    label: str
    operand: Any


@dataclass(frozen=True)
class CompareResult(Result):
    """``left op right``: ``value`` 1 for success, 0 for failure."""

    kind: str
    text: str
    value: int
    op: str
    left: Any
    right: Any
    success: bool


class _computed_once:  # noqa: N801 - used as a decorator, like functools.cached_property
    """A property computed on first use and kept in the instance (``functools.cached_property``
    without its lock, which cost a small roll a tenth of its time)."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        value = self.fn(obj)
        obj.__dict__[self.name] = value  # later reads find it first (a non-data descriptor)
        return value


@dataclass(frozen=True)
class ExpressionResult(Result):
    """A rolled expression: the result tree (``root``), the total, the comment.

    ``total`` is the sum (or, for a success pool, the count; for a comparison 1 for success
    and 0 for failure). ``breakdown`` reads like avrae/d20's: ``4d6kh3 (6, ~~1~~, 3, 5) = 14``,
    a dropped or rerolled face struck through, an exploded die ``6!``, a counted success ``6✓``
    and a subtracted failure ``1✗``. ``to_dict()`` adds, for a comparison, ``success``,
    ``left`` (the left side's value), ``op`` and ``target`` (the right side's value)."""

    expression: str
    total: int
    root: Any
    comment: str | None = None

    @_computed_once
    def breakdown(self) -> Breakdown:
        return Breakdown(_line(self.root) + _tail(self.root, self.total))

    @property
    def dice(self) -> tuple[ExprDie, ...]:
        """Every die of the roll, in the order of the expression."""
        return tuple(_all_dice(self.root))

    @property
    def terms(self) -> tuple[TermResult, ...]:
        """The top-level terms (one for a root that is not a sum)."""
        if isinstance(self.root, SumResult):
            return tuple(
                TermResult(sign, node, sign * node.value)
                for sign, node in zip(self.root.signs, self.root.terms, strict=True)
            )
        return (TermResult(1, self.root, self.root.value),)

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["breakdown"] = str(self.breakdown)
        if isinstance(self.root, CompareResult):
            data.update(
                success=self.root.success,
                left=self.root.left.value,
                op=self.root.op,
                target=self.root.right.value,
            )
        return data


def _tail(root: Any, total: int) -> str:
    if isinstance(root, CompareResult):
        return f" → {'success' if root.success else 'failure'}"
    return f" = {total}"


def _all_dice(node: Any) -> list[ExprDie]:
    if isinstance(node, DiceResult):
        return ([*_all_dice(node.count)] if node.count is not None else []) + list(node.dice)
    out: list[ExprDie] = []
    for child in _children(node):
        out.extend(_all_dice(child))
    return out


def _children(node: Any) -> list[Any]:
    if isinstance(node, SumResult):
        return list(node.terms)
    if isinstance(node, OperationResult | CompareResult):
        return [node.left, node.right]
    if isinstance(node, AbsResult | LabelResult):
        return [node.operand]
    if isinstance(node, SetResult):
        return list(node.items)
    return []


def face_text(d: ExprDie) -> str:
    """One die in a breakdown: ``~~1~~ 4`` rerolled, ``6!`` exploded, ``6✓`` counted..."""
    if d.counted is None and not d.rerolled:  # the usual die, quickly
        shown = f"{d.value}!" if d.exploded else str(d.value)
        return shown if d.kept else f"~~{shown}~~"
    shown = str(d.value) + ("!" if d.exploded else "")
    if d.counted == 1:
        shown += "✓"
    elif d.counted == -1:
        shown += "✗"
    if not d.kept:
        shown = f"~~{shown}~~"
    if d.rerolled:
        shown = " ".join(f"~~{r}~~" for r in d.rerolled) + " " + shown
    return shown


def _dice_line(node: Any, strength: int) -> str:
    head = node.text
    if node.count is not None:
        head = f"({_line(node.count)})" + head[head.rindex(")") + 1 :]
    faces = []
    for d in node.dice:  # face_text, inlined for the usual die: most of a breakdown's time
        if d.counted is None and not d.rerolled:
            shown = f"{d.value}!" if d.exploded else str(d.value)
            faces.append(shown if d.kept else f"~~{shown}~~")
        else:
            faces.append(face_text(d))
    return f"{head} ({', '.join(faces)})"


def _sum_line(node: Any, strength: int) -> str:
    parts = []
    for sign, term in zip(node.signs, node.terms, strict=True):
        inner = _LINES[term.kind](term, 1)
        if parts:
            parts.append(f"- {inner}" if sign < 0 else f"+ {inner}")
        else:
            parts.append(f"-{inner}" if sign < 0 else inner)
    text = " ".join(parts)
    return f"({text})" if strength >= 1 and (len(parts) > 1 or strength >= 2) else text


def _set_line(node: Any, strength: int) -> str:
    parts = []
    for item, kept, counted in zip(node.items, node.kept, node.counted, strict=True):
        shown = _line(item)
        if counted == 1:
            shown += " ✓"
        elif counted == -1:
            shown += " ✗"
        parts.append(shown if kept else f"~~{shown}~~")
    suffix = node.text[node.text.rindex("}") + 1 :]
    return "{" + ", ".join(parts) + "}" + suffix + f" ({node.value})"


def _operation_line(node: Any, strength: int) -> str:
    op = " * " if node.kind == "multiply" else " / "
    text = _line(node.left, 2) + op + _line(node.right, 3)
    if node.kind == "divide" and node.rounding != "floor":
        return f"{node.rounding}({text})"
    return f"({text})" if strength >= 3 else text


_LINES = {
    "number": lambda node, strength: node.text,
    "dice": _dice_line,
    "sum": _sum_line,
    "set": _set_line,
    "multiply": _operation_line,
    "divide": _operation_line,
    "abs": lambda node, strength: f"abs({_line(node.operand)})",
    "label": lambda node, strength: f"{_line(node.operand, 3)} [{node.label}]",
    "compare": lambda node, strength: (
        f"{_line(node.left)} = {node.left.value} {node.op} {_line(node.right)}"
    ),
}


def _line(node: Any, strength: int = 0) -> str:
    """The breakdown of ``node``, parenthesised where a looser node sits in a tighter one."""
    return _LINES[node.kind](node, strength)
