"""Dice expressions: the caps, the errors and the frozen parse tree (what was written).

One node class per construct (as avrae/d20's ``expression.py``): ``Constant``, ``Dice`` with one
slot per stage of a die's life (``Reroll`` → ``Explode`` → ``Clamp`` → ``Keep``/``Select`` →
``Count``), ``SetRoll`` (``{a, b}kh1``), ``Sum`` of signed ``Term``s, ``Multiply``, ``Divide``,
``Abs``, ``Label``, ``Compare`` and the root ``Expression`` (with its comment). ``str()`` of any
node is its canonical text, and ``parse(str(tree)) == tree``.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

from rules import core
from rules.core import Result, RulesError

MAX_LENGTH = 200
MAX_DICE = core.MAX_POOL
MAX_TERMS = 100
MIN_SIDES = 2
MAX_SIDES = core.MAX_SIDES
MAX_CONSTANT = 1_000_000
MAX_MULTIPLIER = 1000
MAX_EXPLOSIONS = core.MAX_EXPLOSIONS
#: Parentheses, braces and functions nested deeper than this are refused.
MAX_NESTING = 12
#: Items in one set ``{a, b, ...}``.
MAX_SET_ITEMS = 20
#: Any total (and any value on the way) stays within ± this.
MAX_TOTAL = 10**9
#: Odds are refused when the totals could span more values than this...
MAX_ODDS_OUTCOMES = 20_000
#: ...or when the estimated work (in operations on big-integer digits, see ``odds._check_cost``)
#: passes this: about half a second; realistic questions estimate under 1% of it.
MAX_ODDS_WORK = 2 * 10**8

#: Keep/drop kinds: keep highest, keep lowest, drop highest, drop lowest.
KEEP_KINDS = ("kh", "kl", "dh", "dl")
_KEEP_WORDS = {"kh": "keep", "kl": "keep", "dh": "drop", "dl": "drop"}
#: Ways a die is rerolled: until it misses the condition, or once.
REROLL_KINDS = ("until", "once")
#: Ways a die explodes: add another die (seed 002's reading), compound into the same die,
#: penetrate (each added die counts one less), once per die, or one extra die for the whole roll.
EXPLODE_KINDS = ("add", "compound", "penetrate", "once", "one")
FATE = "F"
#: Comparisons of two totals.
COMPARE_OPS = (">=", "<=", ">", "<", "==")


# --- errors ---------------------------------------------------------------------------------


class ExpressionError(RulesError):
    """A dice expression that cannot be read or rolled; the message says what and where."""


class ExpressionTooLargeError(ExpressionError, core.PoolTooLargeError):
    """An expression past a hard cap: too long, too many dice, too many explosions."""


class OddsTooCostlyError(ExpressionError):
    """Exact odds that would take too long to compute (rolling still works)."""


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cached_hash(self: Any) -> int:
    """A node's hash, worked out once: the odds' caches look a tree up by value, and a frozen
    dataclass's own hash walks the whole tree every time."""
    h = self.__dict__.get("_hash")
    if h is None:
        cls = type(self)
        fields = _FIELDS.get(cls)
        if fields is None:
            fields = _FIELDS[cls] = operator.attrgetter(*cls.__dataclass_fields__)
        h = hash((cls.__name__, fields(self)))
        object.__setattr__(self, "_hash", h)
    return h


_FIELDS: dict[type, Any] = {}


# --- conditions: which faces a modifier acts on -----------------------------------------------


@dataclass(frozen=True)
class Condition(Result):
    """Faces ``op value``; ``op`` is one of ``=``, ``>=``, ``<=`` (a strict ``>``/``<`` is read
    into one of these when parsed, by its spelling's meaning)."""

    __hash__ = _cached_hash

    op: str
    value: int

    def __post_init__(self) -> None:
        if self.op not in ("=", ">=", "<=") or not _is_whole(self.value):
            raise ExpressionError(f"Not a condition: {self.op}{self.value!r}.")

    def test(self, face: int) -> bool:
        if self.op == "=":
            return face == self.value
        return face >= self.value if self.op == ">=" else face <= self.value

    def __str__(self) -> str:
        return f"{self.op}{self.value}"


def matches(conditions: tuple[Condition, ...], face: int) -> bool:
    """Whether ``face`` meets any of the conditions (``r1r2`` rerolls 1s and 2s)."""
    return any(c.test(face) for c in conditions)


def matching_count(conditions, faces) -> int:
    """How many of ``faces`` meet any of the conditions; a range of faces by arithmetic (a
    d1000 is not walked face by face)."""
    if not isinstance(faces, range) or len(conditions) != 1:
        return sum(1 for f in faces if matches(conditions, f))
    (c,) = conditions
    lo, hi = faces[0], faces[-1]
    if c.op == "=":
        return 1 if lo <= c.value <= hi else 0
    if c.op == ">=":
        return max(0, hi - max(lo, c.value) + 1)
    return max(0, min(hi, c.value) - lo + 1)


def said(conditions) -> str:
    """Conditions in words: "6", "5 or more", "1 or 2"."""
    words = {"=": "", ">=": " or more", "<=": " or less"}
    return " or ".join(f"{c.value}{words[c.op]}" for c in conditions)


def _conditions_text(prefix: str, conditions: tuple[Condition, ...], *, bare: bool = True) -> str:
    """``r1r2``: a condition "exactly N" is written as the bare number where the spelling reads a
    bare number that way (``bare``), else with its operator."""
    return "".join(f"{prefix}{c.value if bare and c.op == '=' else c}" for c in conditions)


# --- dice modifiers: one class per construct, one slot per stage ---------------------------------


@dataclass(frozen=True)
class Reroll(Result):
    """Reroll a die showing a face that meets a condition: ``until`` it does not (``r``, ``rr``),
    or ``once`` (``ro``)."""

    __hash__ = _cached_hash

    kind: str
    conditions: tuple[Condition, ...]

    def __str__(self) -> str:
        return _conditions_text("r" if self.kind == "until" else "ro", self.conditions)


@dataclass(frozen=True)
class Explode(Result):
    """A die meeting the condition explodes (``kind``: see ``EXPLODE_KINDS``)."""

    __hash__ = _cached_hash

    kind: str
    conditions: tuple[Condition, ...]

    def __str__(self) -> str:
        if self.kind in ("once", "one"):  # Foundry's xo and d20's ra read a bare number as "="
            prefix = "xo" if self.kind == "once" else "ra"
            return _conditions_text(prefix, self.conditions) if self.conditions else prefix
        prefix = {"add": "!", "compound": "!!", "penetrate": "!p"}[self.kind]
        return prefix + "".join(str(c) for c in self.conditions)


@dataclass(frozen=True)
class Clamp(Result):
    """Each face counts at least ``minimum`` and at most ``maximum`` (``mi``/``min``,
    ``ma``/``max``)."""

    __hash__ = _cached_hash

    minimum: int | None = None
    maximum: int | None = None

    def apply(self, face: int) -> int:
        if self.minimum is not None and face < self.minimum:
            return self.minimum
        if self.maximum is not None and face > self.maximum:
            return self.maximum
        return face

    def __str__(self) -> str:
        low = "" if self.minimum is None else f"mi{self.minimum}"
        return low + ("" if self.maximum is None else f"ma{self.maximum}")


@dataclass(frozen=True)
class Keep(Result):
    """Keep or drop some dice by rank: ``kind`` is one of ``KEEP_KINDS``."""

    __hash__ = _cached_hash

    kind: str
    count: int

    def __post_init__(self) -> None:
        if self.kind not in KEEP_KINDS:
            raise ExpressionError(f"Unknown keep rule {self.kind!r}; use one of kh, kl, dh, dl.")
        if not _is_whole(self.count) or self.count < 1:
            raise ExpressionError(f"{_KEEP_WORDS[self.kind].capitalize()} at least 1 die.")

    def kept_of(self, n: int) -> tuple[int, bool]:
        """(how many of ``n`` stay, whether they are the highest)."""
        if self.kind in ("kh", "kl"):
            return min(self.count, n), self.kind == "kh"
        return max(n - self.count, 0), self.kind == "dl"

    def __str__(self) -> str:
        return f"{self.kind}{self.count}"


@dataclass(frozen=True)
class Select(Result):
    """Keep (``keep`` True) or drop the dice showing a face that meets a condition: d20's
    literal selectors, ``k>=3``, ``d<=2``."""

    __hash__ = _cached_hash

    keep: bool
    conditions: tuple[Condition, ...]

    def __str__(self) -> str:
        return _conditions_text("k" if self.keep else "d", self.conditions, bare=False)


@dataclass(frozen=True)
class Count(Result):
    """Count dice instead of summing them: +1 for each kept die meeting ``success``, and for one
    meeting ``failure`` -1 (``subtract``: Roll20's ``f``, Foundry's ``df``) or, with no success
    condition, +1 (Foundry's ``cf`` counts failures)."""

    __hash__ = _cached_hash

    success: tuple[Condition, ...] = ()
    failure: tuple[Condition, ...] = ()

    def score(self, value: int) -> int:
        if self.success and matches(self.success, value):
            return 1
        if self.failure and matches(self.failure, value):
            return -1 if self.success else 1
        return 0

    def __str__(self) -> str:
        if not self.success:
            return _conditions_text("cf", self.failure)
        return _conditions_text("cs", self.success) + _conditions_text("df", self.failure)


# --- the nodes ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Constant(Result):
    """A whole number written in the expression."""

    __hash__ = _cached_hash

    value: int

    def __post_init__(self) -> None:
        if not _is_whole(self.value) or not 0 <= self.value <= MAX_CONSTANT:
            raise ExpressionError(f"Numbers must be whole, from 0 to {MAX_CONSTANT:,}.")

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Dice(Result):
    """``count`` dice (a number, or a node rolled first: ``(1d4+1)d6``) with ``sides`` faces
    (or ``"F"``: fate dice, -1/0/+1), each stage optional."""

    __hash__ = _cached_hash

    count: Any  # int or a node
    sides: Any  # int or FATE
    reroll: Reroll | None = None
    explode: Explode | None = None
    clamp: Clamp | None = None
    keep: Keep | Select | None = None
    counting: Count | None = None

    def __post_init__(self) -> None:
        # the parser places its own messages; these guard trees built by hand
        if _is_whole(self.count):
            if self.count < 1:
                raise ExpressionError(f"Roll at least 1 die (got {self.count!r}).")
            if self.count > MAX_DICE:
                raise ExpressionTooLargeError(
                    f"{self.count} dice is too many; the most one expression rolls is {MAX_DICE}."
                )
        elif not isinstance(self.count, NODE_TYPES):
            raise ExpressionError(f"Roll at least 1 die (got {self.count!r}).")
        if self.sides != FATE and (not _is_whole(self.sides) or self.sides < MIN_SIDES):
            raise ExpressionError(f"A die needs at least {MIN_SIDES} sides (got d{self.sides}).")
        if self.sides != FATE and self.sides > MAX_SIDES:
            raise ExpressionError(f"d{self.sides} is too big; the biggest die is a d{MAX_SIDES}.")
        if self.keep is not None and not isinstance(self.keep, Keep | Select):
            raise ExpressionError(f"Not a keep rule: {self.keep!r}.")
        if isinstance(self.keep, Keep) and _is_whole(self.count):
            if self.keep.kind in ("kh", "kl") and self.keep.count > self.count:
                raise ExpressionError(f"Can't keep {self.keep.count} dice out of {self.count}.")
            if self.keep.kind in ("dh", "dl") and self.keep.count >= self.count:
                raise ExpressionError(
                    f"Can't drop {self.keep.count} dice out of {self.count}: at least one must "
                    "stay."
                )

    @property
    def faces(self) -> range:
        return range(-1, 2) if self.sides == FATE else range(1, self.sides + 1)

    @property
    def explode_at(self) -> int | None:
        """The face from which an ``add`` explosion goes off, when it is "that face or more"
        (the old dialect's ``!`` and ``!>=N``); None otherwise."""
        e = self.explode
        if e is None or e.kind != "add" or len(e.conditions) != 1 or self.sides == FATE:
            return None
        (c,) = e.conditions
        if c.op == ">=" or (c.op == "=" and c.value == self.sides):
            return c.value
        return None

    @property
    def simple(self) -> bool:
        """The old dialect's dice: a written count, numbered faces, at most ``!``/``!>=N`` and a
        keep/drop by rank (the fast odds and rolling paths)."""
        return (
            _is_whole(self.count)
            and self.sides != FATE
            and self.reroll is None
            and (self.explode is None or self.explode_at is not None)
            and self.clamp is None
            and (self.keep is None or isinstance(self.keep, Keep))
            and self.counting is None
        )

    def __str__(self) -> str:
        count = self.count if _is_whole(self.count) else f"({self.count})"
        text = f"{count}d{self.sides}"
        if self.reroll is not None:
            text += str(self.reroll)
        if self.explode is not None:
            at = self.explode_at
            top = self.faces[-1]
            if at == self.sides:
                text += "!"
            elif at is not None:
                text += f"!>={at}"
            elif self.explode.kind != "one" and self.explode.conditions in (
                (Condition("=", top),),
                (Condition(">=", top),),
            ):
                text += str(Explode(self.explode.kind, ()))  # on the top face: "1d6!!"
            else:
                text += str(self.explode)
        for part in (self.clamp, self.keep, self.counting):
            if part is not None:
                text += str(part)
        return text


@dataclass(frozen=True)
class SetRoll(Result):
    """A set of expressions, ``{a, b}`` (Roll20) or ``(a, b)`` (d20): keep/drop and counting
    apply to the items' totals; without them the set is the sum of its items."""

    __hash__ = _cached_hash

    items: tuple[Any, ...]
    keep: Keep | Select | None = None
    counting: Count | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "items", tuple(self.items))
        if not self.items or not all(isinstance(i, NODE_TYPES) for i in self.items):
            raise ExpressionError("A set needs at least one expression.")
        if isinstance(self.keep, Keep):
            n = len(self.items)
            if self.keep.kind in ("kh", "kl") and self.keep.count > n:
                raise ExpressionError(f"Can't keep {self.keep.count} of a set of {n}.")
            if self.keep.kind in ("dh", "dl") and self.keep.count >= n:
                raise ExpressionError(f"Can't drop {self.keep.count} of a set of {n}.")

    def __str__(self) -> str:
        text = "{" + ", ".join(str(i) for i in self.items) + "}"
        for part in (self.keep, self.counting):
            if part is not None:
                text += str(part)
        return text


@dataclass(frozen=True)
class Term(Result):
    """One added (``sign`` +1) or subtracted (-1) part of a ``Sum``."""

    __hash__ = _cached_hash

    sign: int
    operand: Any

    def __post_init__(self) -> None:
        if self.sign not in (1, -1) or isinstance(self.sign, bool):
            raise ExpressionError("A term's sign must be +1 or -1.")
        if not isinstance(self.operand, NODE_TYPES):
            raise ExpressionError(f"A term is dice or a number, not {self.operand!r}.")

    def __str__(self) -> str:
        return _wrap(self.operand, _SUM)


@dataclass(frozen=True)
class Sum(Result):
    """Terms added and subtracted: ``3d6 + 2 - 1d4``."""

    __hash__ = _cached_hash

    terms: tuple[Term, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "terms", tuple(self.terms))
        if not self.terms or not all(isinstance(t, Term) for t in self.terms):
            raise ExpressionError("An expression needs at least one term.")
        if len(self.terms) > MAX_TERMS:
            raise ExpressionTooLargeError(
                f"That expression has {len(self.terms)} terms; the most is {MAX_TERMS}."
            )

    def __str__(self) -> str:
        parts = []
        for i, term in enumerate(self.terms):
            if i == 0:
                parts.append(f"-{term}" if term.sign < 0 else str(term))
            else:
                parts.append(f"{'-' if term.sign < 0 else '+'} {term}")
        return " ".join(parts)


@dataclass(frozen=True)
class Multiply(Result):
    """``left * right``."""

    __hash__ = _cached_hash

    left: Any
    right: Any

    def __str__(self) -> str:
        return f"{_wrap(self.left, _PRODUCT)}*{_wrap(self.right, _PRODUCT + 1)}"


#: How a division rounds: down (``/``, ``//``, ``floor(a/b)``), up (``ceil(a/b)``) or to the
#: nearest, halves up (``round(a/b)``).
ROUNDINGS = ("floor", "ceil", "round")


@dataclass(frozen=True)
class Divide(Result):
    """``left / right``, a whole number: rounded down unless written ``ceil(a/b)`` or
    ``round(a/b)``."""

    __hash__ = _cached_hash

    left: Any
    right: Any
    rounding: str = "floor"

    def __post_init__(self) -> None:
        if self.rounding not in ROUNDINGS:
            raise ExpressionError(f"Round {self.rounding!r}? Use one of {', '.join(ROUNDINGS)}.")

    def __str__(self) -> str:
        text = f"{_wrap(self.left, _PRODUCT)}/{_wrap(self.right, _PRODUCT + 1)}"
        return text if self.rounding == "floor" else f"{self.rounding}({text})"


@dataclass(frozen=True)
class Abs(Result):
    """``abs(x)``: the value without its sign."""

    __hash__ = _cached_hash

    operand: Any

    def __str__(self) -> str:
        return f"abs({self.operand})"


@dataclass(frozen=True)
class Label(Result):
    """``node [text]``: a label kept on the card, never in the total."""

    __hash__ = _cached_hash

    operand: Any
    text: str

    def __str__(self) -> str:
        return f"{_wrap(self.operand, _ATOM)} [{self.text}]"


@dataclass(frozen=True)
class Compare(Result):
    """``left op right``: success (1) or failure (0)."""

    __hash__ = _cached_hash

    left: Any
    op: str
    right: Any

    def __post_init__(self) -> None:
        if self.op not in COMPARE_OPS:
            raise ExpressionError(f"Compare with one of {', '.join(COMPARE_OPS)}.")

    def test(self, left: int, right: int) -> bool:
        return {
            ">=": left >= right,
            "<=": left <= right,
            ">": left > right,
            "<": left < right,
            "==": left == right,
        }[self.op]

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


NODE_TYPES = (Constant, Dice, SetRoll, Sum, Multiply, Divide, Abs, Label)

# Binding strength, for the parentheses of the canonical text.
_SUM, _PRODUCT, _ATOM = 1, 2, 4


def _strength(node: Any) -> int:
    if isinstance(node, Sum):
        return _SUM if len(node.terms) > 1 or node.terms[0].sign < 0 else _strength(node.terms[0])
    if isinstance(node, Multiply | Divide) and not (
        isinstance(node, Divide) and node.rounding != "floor"
    ):
        return _PRODUCT
    if isinstance(node, Label):
        return _PRODUCT  # "1d6 [fire]" inside a product reads better in parentheses
    return _ATOM


def _wrap(node: Any, at_least: int) -> str:
    return str(node) if _strength(node) >= at_least else f"({node})"


@dataclass(frozen=True)
class Expression(Result):
    """The parse tree of a dice expression: its body (any node, or a ``Compare``) and the
    comment after ``#``; ``str()`` is its canonical form."""

    __hash__ = _cached_hash

    body: Any
    comment: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.body, (*NODE_TYPES, Compare)):
            raise ExpressionError("An expression needs at least one term.")
        if self.dice_count > MAX_DICE:
            raise ExpressionTooLargeError(
                f"That is {self.dice_count} dice in all; the most one expression rolls is "
                f"{MAX_DICE}."
            )

    @property
    def terms(self) -> tuple[Term, ...]:
        """The top-level terms (one for a body that is not a sum)."""
        if isinstance(self.body, Compare):
            return ()
        return self.body.terms if isinstance(self.body, Sum) else (Term(1, self.body),)

    @property
    def dice_count(self) -> int:
        """Dice written in the expression, rolled counts at their most (explosions not
        counted)."""
        return sum(
            (n.count if _is_whole(n.count) else bounds(n.count)[1])
            for n in walk(self.body)
            if isinstance(n, Dice)
        )

    def __str__(self) -> str:
        return str(self.body) + ("" if self.comment is None else f" # {self.comment}")


def walk(node: Any) -> list[Any]:
    """Every node under ``node`` (itself included), parents first."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        if isinstance(n, Sum):
            stack.extend(t.operand for t in reversed(n.terms))
        elif isinstance(n, Multiply | Divide | Compare):
            stack.extend((n.right, n.left))
        elif isinstance(n, Abs | Label):
            stack.append(n.operand)
        elif isinstance(n, SetRoll):
            stack.extend(reversed(n.items))
        elif isinstance(n, Dice) and not _is_whole(n.count):
            stack.append(n.count)
    return out


def replace(node: Any, old: Any, new: Any) -> Any:
    """``node`` with ``old`` (found by identity) replaced by ``new``: Avrae's ``adv`` turns the
    first 1d20 into 2d20kh1."""
    if node is old:
        return new
    if isinstance(node, Sum):
        return Sum(tuple(Term(t.sign, replace(t.operand, old, new)) for t in node.terms))
    if isinstance(node, Multiply):
        return Multiply(replace(node.left, old, new), replace(node.right, old, new))
    if isinstance(node, Divide):
        return Divide(replace(node.left, old, new), replace(node.right, old, new), node.rounding)
    if isinstance(node, Compare):
        return Compare(replace(node.left, old, new), node.op, replace(node.right, old, new))
    if isinstance(node, Abs):
        return Abs(replace(node.operand, old, new))
    if isinstance(node, Label):
        return Label(replace(node.operand, old, new), node.text)
    if isinstance(node, SetRoll):
        return SetRoll(tuple(replace(i, old, new) for i in node.items), node.keep, node.counting)
    if isinstance(node, Dice) and not _is_whole(node.count):
        count = replace(node.count, old, new)
        return Dice(count, node.sides, node.reroll, node.explode, node.clamp, node.keep,
                    node.counting)  # fmt: skip
    return node


def bounds(node: Any) -> tuple[int, int]:
    """The lowest and highest value ``node`` can take (explosions at the cap): cheap interval
    arithmetic, for the caps."""
    if isinstance(node, Constant):
        return node.value, node.value
    if isinstance(node, Label):
        return bounds(node.operand)
    if isinstance(node, Abs):
        lo, hi = bounds(node.operand)
        return (0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
    if isinstance(node, Sum):
        lo = hi = 0
        for t in node.terms:
            a, b = bounds(t.operand)
            lo, hi = (lo + a, hi + b) if t.sign > 0 else (lo - b, hi - a)
        return lo, hi
    if isinstance(node, Multiply | Divide):
        a, b = bounds(node.left)
        c, d = bounds(node.right)
        if isinstance(node, Multiply):
            corners = [a * c, a * d, b * c, b * d]
        else:
            divisors = [x for x in (c, d, 1, -1) if x != 0 and c <= x <= d]
            corners = [p // q for p in (a, b) for q in divisors] + [-abs(a), abs(b)]
        return min(corners), max(corners)
    if isinstance(node, Compare):
        return 0, 1
    if isinstance(node, SetRoll):
        parts = [bounds(i) for i in node.items]
        if node.counting is not None:
            return -len(parts), len(parts)
        lo = sum(min(p[0], 0) for p in parts)
        return lo, sum(max(p[1], 0) for p in parts)
    assert isinstance(node, Dice)
    n = node.count if _is_whole(node.count) else max(bounds(node.count)[1], 0)
    extra = MAX_EXPLOSIONS * (n if node.explode and node.explode.kind == "compound" else 1)
    total = n + (extra if node.explode else 0)
    if node.counting is not None:
        return -total, total
    low, high = node.faces[0], node.faces[-1]
    if node.clamp is not None:
        low, high = node.clamp.apply(low), node.clamp.apply(high)
    return min(low * total, 0), max(high * total, 0)
