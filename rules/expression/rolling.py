"""Dice expressions: rolling one, every die kept (what was rolled).

A die's life, in the order its modifiers are written: it is rolled (and rerolled while, or once
if, it meets a reroll condition), explodes (an ``add`` explosion adds another die to the roll,
seed 002's "adding another d6 to the roll"; ``compound`` adds into the same die; ``penetrate``
adds a die that counts one less; ``once`` lets each written die explode once; ``one``, d20's
``ra``, adds one die for the whole roll), is clamped by min/max, then kept or dropped (among
*all* dice of the roll, explosion dice included), then summed or counted. Every die added by an
explosion is rolled the same way (rerolled too).
"""

from __future__ import annotations

import functools

from rules import core
from rules.core import Rng
from rules.expression.parser import PARSE_CACHE_SIZE, parse
from rules.expression.results import (
    AbsResult,
    CompareResult,
    DiceResult,
    ExprDie,
    ExpressionResult,
    LabelResult,
    NumberResult,
    OperationResult,
    SetResult,
    SumResult,
)
from rules.expression.tree import (
    FATE,
    MAX_EXPLOSIONS,
    Abs,
    Compare,
    Constant,
    Dice,
    Divide,
    Expression,
    ExpressionError,
    ExpressionTooLargeError,
    Keep,
    Label,
    Multiply,
    SetRoll,
    Sum,
    matches,
)

#: Rerolls shown one by one before a die "rerolled until" is drawn straight from the faces it may
#: land on (the same odds, and never a long loop: ``1d1000r<999``).
SHOWN_REROLLS = 20


def _frozen(cls: type, fields: dict) -> object:
    """A frozen result dataclass built without its ``__init__``, which pays one guarded setattr
    per field: most of a small roll's time. Only for the result classes here, none of which
    checks anything in ``__init__``; the object is as frozen as one built the usual way."""
    obj = object.__new__(cls)
    object.__setattr__(obj, "__dict__", fields)
    return obj


# A field left out of a result's dict reads its dataclass default from the class (kept True,
# exploded False, no rerolls...): a plain die is three entries, not ten.


def _simple_dice(
    sides: int, explode_at: int | None, keep, count: int, rng: Rng, text: str
) -> tuple[tuple[ExprDie, ...], int]:
    """The old dialect's dice (``!``/``!>=N``, keep/drop by rank), as lean as before."""
    randint = rng.randint
    values = [randint(1, sides) for _ in range(count)]
    if explode_at is None:
        sources = exploded = None
    else:
        sources = [None] * count
        exploded = [False] * count
        i = 0
        # A queue: each die that explodes appends one more, which is looked at in its turn.
        while i < len(values):
            if values[i] >= explode_at:
                if len(values) - count >= MAX_EXPLOSIONS:
                    raise ExpressionTooLargeError(
                        f"The dice of {text} exploded more than {MAX_EXPLOSIONS} times; the "
                        "roll was stopped and does not count."
                    )
                exploded[i] = True
                values.append(randint(1, sides))
                sources.append(i)
                exploded.append(False)
            i += 1
    if keep is None:
        kept = None
        total = sum(values)
    else:
        kept = _keep_flags(values, keep)
        total = sum(v for v, k in zip(values, kept, strict=True) if k)
    dice = []
    for j, v in enumerate(values):
        fields = {"sides": sides, "rolled": v, "value": v}
        if kept is not None:
            fields["kept"] = kept[j]
        if exploded is not None:
            fields["exploded"] = exploded[j]
            fields["source"] = sources[j]
        dice.append(_frozen(ExprDie, fields))
    return tuple(dice), total


def _keep_flags(values: list[int], keep) -> list[bool]:
    kept = [True] * len(values)
    if isinstance(keep, Keep):
        order = sorted(range(len(values)), key=lambda j: (values[j], j))  # lowest first
        k, n = keep.count, len(values)
        dropped = {
            "kh": order[: max(n - k, 0)],
            "kl": order[k:],
            "dl": order[:k],
            "dh": order[max(n - k, 0) :],
        }[keep.kind]
        for j in dropped:
            kept[j] = False
    elif keep is not None:  # a Select: by face
        for j, v in enumerate(values):
            kept[j] = matches(keep.conditions, v) == keep.keep
    return kept


def _roll_dice(node: Dice, count: int, rng: Rng, text: str) -> tuple[tuple[ExprDie, ...], int]:
    """The dice of ``node`` (``count`` of them) and their value (sum or count)."""
    if node.simple:
        return _simple_dice(node.sides, node.explode_at, node.keep, count, rng, text)
    fresh = _roller(node, rng)
    rolled = [fresh() for _ in range(count)]
    grown = _Explosions(count)
    if node.explode is not None:
        _explode(node.explode, rolled, grown, fresh, text)
    return _scored(node, rolled, grown)


def _roller(node: Dice, rng: Rng):
    """A function that rolls one die of ``node``, with its rerolls: (face, faces rerolled)."""
    faces = node.faces
    low, high = (-1, 1) if node.sides == FATE else (1, node.sides)

    def draw() -> int:
        return rng.randint(low, high)

    reroll = node.reroll

    def fresh() -> tuple[int, tuple[int, ...]]:
        face = draw()
        if reroll is None or not matches(reroll.conditions, face):
            return face, ()
        before = [face]
        if reroll.kind == "once":
            return draw(), tuple(before)
        face = draw()
        while matches(reroll.conditions, face):
            if len(before) >= SHOWN_REROLLS:
                # Rerolling until a face misses lands evenly on the faces that miss.
                landing = [f for f in faces if not matches(reroll.conditions, f)]
                return landing[rng.randint(0, len(landing) - 1)], tuple(before)
            before.append(face)
            face = draw()
        return face, tuple(before)

    return fresh


class _Explosions:
    """Per die rolled: the die it exploded from, whether it exploded, its compounded chain and
    its penetration penalty (lists that grow with the dice)."""

    def __init__(self, count: int) -> None:
        self.sources: list[int | None] = [None] * count
        self.exploded = [False] * count
        self.chains: list[tuple[int, ...]] = [()] * count
        self.penalty = [0] * count

    def add(self, source: int, penalty: int) -> None:
        self.exploded[source] = True
        self.sources.append(source)
        self.exploded.append(False)
        self.chains.append(())
        self.penalty.append(penalty)


def _explode(explode, rolled: list, grown: _Explosions, fresh, text: str) -> None:
    """Roll the dice that ``explode`` adds to ``rolled`` (or compounds into a die's chain)."""
    cond, kind = explode.conditions, explode.kind
    count = len(rolled)
    if kind in ("add", "penetrate"):
        i = 0
        # A queue: each die that explodes appends one more, looked at in its turn.
        while i < len(rolled):
            if matches(cond, rolled[i][0]):
                if len(rolled) - count >= MAX_EXPLOSIONS:
                    raise ExpressionTooLargeError(
                        f"The dice of {text} exploded more than {MAX_EXPLOSIONS} times; the "
                        "roll was stopped and does not count."
                    )
                rolled.append(fresh())
                grown.add(i, 1 if kind == "penetrate" else 0)
            i += 1
    elif kind == "compound":
        for i in range(count):
            chain = [rolled[i][0]]
            while matches(cond, chain[-1]):
                if len(chain) > MAX_EXPLOSIONS:
                    raise ExpressionTooLargeError(
                        f"A die of {text} compounded more than {MAX_EXPLOSIONS} times; the "
                        "roll was stopped and does not count."
                    )
                chain.append(fresh()[0])
            if len(chain) > 1:
                grown.exploded[i] = True
                grown.chains[i] = tuple(chain)
    else:  # "once": each written die at most once; "one": one die for the whole roll
        for i in range(count):
            if matches(cond, rolled[i][0]):
                rolled.append(fresh())
                grown.add(i, 0)
                if kind == "one":
                    break


def _scored(node: Dice, rolled: list, grown: _Explosions) -> tuple[tuple[ExprDie, ...], int]:
    """The rolled dice clamped, kept and counted, and their value (sum or count)."""
    clamp = node.clamp
    chains = grown.chains
    values = []
    for j, (face, _) in enumerate(rolled):
        if chains[j]:
            values.append(sum(clamp.apply(f) if clamp else f for f in chains[j]))
        else:
            values.append((clamp.apply(face) if clamp else face) - grown.penalty[j])
    kept = _keep_flags(values, node.keep)
    counting = node.counting
    counted = [counting.score(v) if counting else None for v in values]
    total = sum((c if counting else v) for v, c, k in zip(values, counted, kept, strict=True) if k)
    dice = tuple(
        _frozen(
            ExprDie,
            {
                "sides": node.sides,
                "rolled": face,
                "value": values[j],
                "kept": kept[j],
                "exploded": grown.exploded[j],
                "bonus": 0,
                "source": grown.sources[j],
                "rerolled": before,
                "chain": chains[j],
                "counted": counted[j] if kept[j] else None,
            },
        )
        for j, (face, before) in enumerate(rolled)
    )
    return dice, total


def _floor_div(a: int, b: int, rounding: str) -> int:
    if b == 0:
        raise ExpressionError("That roll divided by zero; it does not count.")
    if rounding == "floor":
        return a // b
    if rounding == "ceil":
        return -(-a // b)
    if b < 0:
        a, b = -a, -b
    return (2 * a + b) // (2 * b)  # halves up


def _compile(node):
    """A function rng -> the result tree of ``node``, with every text spelled out once (a table
    rolls the same few expressions all night; the plan of a text is kept)."""
    cls = type(node)
    text = str(node)
    if cls is Constant:
        fixed = NumberResult("number", text, node.value)  # frozen: one result serves every roll
        return lambda rng: fixed
    if cls is Dice:
        return _compile_dice(node, text)
    if cls is Sum:
        return _compile_sum(node, text)
    if cls is Multiply and type(node.right) is Constant:  # "3d6*2": the old dialect's term
        return _compile_scaled(node, text)
    if cls is Multiply or cls is Divide:
        return _compile_operation(node, text)
    if cls is Abs:
        inner_plan = _compile(node.operand)

        def run_abs(rng):
            inner = inner_plan(rng)
            return AbsResult("abs", text, abs(inner.value), inner)

        return run_abs
    if cls is Label:
        inner_plan = _compile(node.operand)
        label = node.text
        return lambda rng: (lambda inner: LabelResult("label", text, inner.value, label, inner))(
            inner_plan(rng)
        )
    if cls is SetRoll:
        return _compile_set(node, text)
    assert cls is Compare
    left_plan, right_plan = _compile(node.left), _compile(node.right)

    def run_compare(rng):
        left, right = left_plan(rng), right_plan(rng)
        success = node.test(left.value, right.value)
        return CompareResult("compare", text, int(success), node.op, left, right, success)

    return run_compare


def _compile_sum(node: Sum, text: str):
    signs = tuple(t.sign for t in node.terms)
    plans = [_compile(t.operand) for t in node.terms]

    def run_sum(rng):
        terms = tuple([plan(rng) for plan in plans])
        total = 0
        for sign, t in zip(signs, terms):  # noqa: B905 - built together, same length
            total += t.value if sign > 0 else -t.value
        return _frozen(
            SumResult,
            {"kind": "sum", "text": text, "value": total, "signs": signs, "terms": terms},
        )

    return run_sum


def _compile_scaled(node: Multiply, text: str):
    left_plan, factor = _compile(node.left), node.right.value
    fixed = NumberResult("number", str(factor), factor)

    def run_scaled(rng):
        left = left_plan(rng)
        return _frozen(
            OperationResult,
            {"kind": "multiply", "text": text, "value": left.value * factor, "left": left,
             "right": fixed},
        )  # fmt: skip

    return run_scaled


def _compile_operation(node, text: str):
    left_plan, right_plan = _compile(node.left), _compile(node.right)
    kind = "multiply" if type(node) is Multiply else "divide"
    rounding = "floor" if type(node) is Multiply else node.rounding

    def run_operation(rng):
        left, right = left_plan(rng), right_plan(rng)
        if kind == "multiply":
            value = left.value * right.value
        else:
            value = _floor_div(left.value, right.value, rounding)
        return _frozen(
            OperationResult,
            {"kind": kind, "text": text, "value": value, "left": left, "right": right,
             "rounding": rounding},
        )  # fmt: skip

    return run_operation


def _compile_set(node: SetRoll, text: str):
    item_plans = [_compile(i) for i in node.items]
    keep, counting = node.keep, node.counting

    def run_set(rng):
        items = tuple(plan(rng) for plan in item_plans)
        values = [i.value for i in items]
        kept = _keep_flags(values, keep)
        counted = tuple(counting.score(v) if counting and k else None
                        for v, k in zip(values, kept, strict=True))  # fmt: skip
        if counting:
            value = sum(c for c in counted if c is not None)
        else:
            value = sum(v for v, k in zip(values, kept, strict=True) if k)
        return SetResult("set", text, value, items, tuple(kept), counted)

    return run_set


def _compile_dice(node: Dice, text: str):
    counting = node.counting is not None
    if isinstance(node.count, int):
        count, sides = node.count, node.sides
        if node.simple and node.explode is None and node.keep is None:

            def run_plain(rng):
                # The usual roll ("3d6"): every die kept, none exploding, nothing else.
                values = [rng.randint(1, sides) for _ in range(count)]
                dice = tuple(
                    _frozen(ExprDie, {"sides": sides, "rolled": v, "value": v}) for v in values
                )
                return _frozen(
                    DiceResult,
                    {"kind": "dice", "text": text, "value": sum(values), "dice": dice},
                )

            return run_plain

        if node.simple:  # the old dialect's "!" and keep/drop, its arguments worked out once
            explode_at, keep = node.explode_at, node.keep

            def run_simple(rng):
                dice, value = _simple_dice(sides, explode_at, keep, count, rng, text)
                return _frozen(
                    DiceResult,
                    {"kind": "dice", "text": text, "value": value, "dice": dice},
                )

            return run_simple

        def run_dice(rng):
            dice, value = _roll_dice(node, count, rng, text)
            return _frozen(
                DiceResult,
                {"kind": "dice", "text": text, "value": value, "dice": dice,
                 "counting": counting, "count": None},
            )  # fmt: skip

        return run_dice
    count_plan = _compile(node.count)

    def run_rolled_count(rng):
        count_result = count_plan(rng)
        n = count_result.value
        if n < 0:
            raise ExpressionError(f"{text} rolled {n} dice; a roll needs 0 or more.")
        dice, value = _roll_dice(node, n, rng, text)
        return _frozen(
            DiceResult,
            {"kind": "dice", "text": text, "value": value, "dice": dice,
             "counting": counting, "count": count_result},
        )  # fmt: skip

    return run_rolled_count


@functools.lru_cache(maxsize=PARSE_CACHE_SIZE)
def _tree_for_text(text: str):
    # A table rolls the same few texts all night: parse, spell and compile them once.
    expr = parse(text)
    return expr, str(expr), _compile(expr.body)


def roll(text_or_expr: str | Expression, *, rng: Rng | None = None) -> ExpressionResult:
    """Roll a dice expression; every die is kept in the result.

    Exploding dice add "another d6 to the roll" (seed 002) as separate dice; keep/drop picks among
    all of a roll's dice ("roll three dice, and use the higher two", seed 003, is ``3d6kh2``).
    Raises ``ExpressionTooLargeError`` if a roll's dice would explode more than
    ``MAX_EXPLOSIONS`` times (the roll is stopped; nothing counts), ``ExpressionError`` if it
    divides by zero.
    """
    if isinstance(text_or_expr, Expression):
        expr, text, plan = text_or_expr, str(text_or_expr), _compile(text_or_expr.body)
    elif isinstance(text_or_expr, str):
        expr, text, plan = _tree_for_text(text_or_expr)
    else:
        raise ExpressionError(f"A dice expression is text like '3d6+2', not {text_or_expr!r}.")
    rng = core.resolve_rng(rng)
    root = plan(rng)
    return _frozen(
        ExpressionResult,
        {"expression": text, "total": root.value, "root": root, "comment": expr.comment},
    )
