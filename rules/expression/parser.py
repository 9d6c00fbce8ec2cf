"""Dice expressions: a table-driven hand parser (the spellings are in ``spellings.py``).

Precedence, loosest first (d20's ``grammar.lark``)::

    expression := compare [("adv" | "dis")] ["#" comment]
    compare    := sum [SPACE (">=" | "<=" | ">" | "<" | "==" | "=") sum]
    sum        := ["+" | "-"]* product (("+" | "-") product)*
    product    := unary (("*" | "/" | "//") unary)*
    unary      := ("+" | "-")* atom
    atom       := (NUMBER | dice | set | "(" sum ")" | FUNCTION "(" sum ")") label*
    dice       := [NUMBER | "(" sum ")"] "d" (NUMBER | "%" | "F") modifier*
    set        := ("{" sum ("," sum)* "}" | "(" sum ("," sum)+ [","] ")") modifier*
    modifier   := a row of spellings.MODIFIERS with its argument
    label      := "[" text "]"

Errors name the 1-based position and, where a word is close to a known spelling, suggest it.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import math

from rules.expression import spellings as sp
from rules.expression.tree import (
    _KEEP_WORDS,
    FATE,
    MAX_CONSTANT,
    MAX_DICE,
    MAX_LENGTH,
    MAX_MULTIPLIER,
    MAX_NESTING,
    MAX_SET_ITEMS,
    MAX_SIDES,
    MAX_TERMS,
    MAX_TOTAL,
    MIN_SIDES,
    Abs,
    Clamp,
    Compare,
    Condition,
    Constant,
    Count,
    Dice,
    Divide,
    Explode,
    Expression,
    ExpressionError,
    ExpressionTooLargeError,
    Keep,
    Label,
    Multiply,
    Reroll,
    Select,
    SetRoll,
    Sum,
    Term,
    bounds,
    matches,
    matching_count,
    replace,
    said,
    walk,
)

_DIGITS = "0123456789"  # not str.isdigit(): that accepts other scripts' digits
_COMPARE = (">=", "<=", "==", ">", "<", "=")
_LABEL_MAX = 40


def _no_space() -> bool:
    return False


_NO_MODIFIERS = {"reroll": None, "explode": None, "clamp": None, "keep": None, "counting": None}


def _built(cls: type, **fields):
    """A tree node the parser has already checked (with positions in its messages), built
    without the frozen dataclass's ``__init__`` and checks: most of a short parse's time. The
    node is as frozen, equal and hashable as one built the usual way (the tests build both)."""
    node = object.__new__(cls)
    object.__setattr__(node, "__dict__", fields)
    return node


def _suggest(word: str) -> str:
    if word.lower() in sp.WORDS:
        return ""  # a known word in the wrong place: the "expected" says what fits
    close = difflib.get_close_matches(word.lower(), sp.WORDS, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


@dataclasses.dataclass
class _Tally:
    """The success and failure conditions a roll's modifiers gave so far, and how failures
    count (``count`` or ``subtract``)."""

    success: list = dataclasses.field(default_factory=list)
    failure: list = dataclasses.field(default_factory=list)
    failure_kind: str | None = None


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.low = text.lower()
        self.at = 0
        self.depth = 0
        self.dice_total = 0
        self.where: dict[str, int] = {}  # where each modifier of the dice being read is
        if not any(ch.isspace() for ch in text):  # "4d6kh3": nothing to skip, ever
            self.skip = _no_space
            self.peek = self._peek_tight

    # --- reading characters ------------------------------------------------------------------

    def skip(self) -> bool:
        """Skip whitespace; whether there was any."""
        at, text, n = self.at, self.text, self.n
        if at >= n or not text[at].isspace():
            return False
        while at < n and text[at].isspace():
            at += 1
        self.at = at
        return True

    def peek(self) -> str:
        """The next character that is not whitespace, lower-cased ("" at the end)."""
        at = self.at
        if at < self.n and not self.text[at].isspace():
            return self.low[at]
        self.skip()
        return self.low[self.at] if self.at < self.n else ""

    def _peek_tight(self) -> str:
        return self.low[self.at] if self.at < self.n else ""

    def looking_at(self, word: str) -> bool:
        """Whether ``word`` comes next, whitespace allowed between its characters (the old
        dialect read ``4d6 d l 1``)."""
        i = self.at
        for ch in word:
            while i < len(self.text) and self.text[i].isspace():
                i += 1
            if i >= len(self.text) or self.low[i] != ch:
                return False
            i += 1
        return True

    def take(self, word: str) -> int:
        """Consume ``word`` (see ``looking_at``); its 1-based position."""
        self.skip()
        pos = self.at + 1
        if self.low.startswith(word, self.at):  # the usual case: written without spaces
            self.at += len(word)
            return pos
        for ch in word:
            self.skip()
            assert self.low[self.at] == ch
            self.at += 1
        return pos

    def word_at(self) -> str:
        i = self.at
        while i < len(self.text) and self.low[i].isalpha() and self.low[i].isascii():
            i += 1
        return self.low[self.at : i]

    def error(self, message: str, pos: int | None = None) -> ExpressionError:
        pos = self.at + 1 if pos is None else pos
        return ExpressionError(f"{message} (position {pos} in {self.text!r})")

    def unexpected(self, expected: str) -> ExpressionError:
        self.skip()
        if self.at >= len(self.text):
            return ExpressionError(
                f"Unexpected end at position {self.at + 1} in {self.text!r}; expected {expected}."
            )
        word = self.word_at()
        shown = (word[:12] + "…" if len(word) > 12 else word) or self.text[self.at]
        hint = _suggest(word) if len(word) > 1 else ""
        return ExpressionError(
            f"Unexpected {shown!r} at position {self.at + 1} in {self.text!r}; "
            f"expected {expected}{hint or '.'}"
        )

    def number(self, expected: str) -> tuple[int, int]:
        """(value, position) of a whole number."""
        self.skip()
        start = self.at
        while self.at < len(self.text) and self.text[self.at] in _DIGITS:
            self.at += 1
        if self.at == start:
            raise self.unexpected(expected)
        return int(self.text[start : self.at]), start + 1  # at most MAX_LENGTH digits

    def nest(self, pos: int) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ExpressionTooLargeError(
                str(self.error(f"Nested more than {MAX_NESTING} deep", pos))
            )

    # --- the grammar ----------------------------------------------------------------------------

    def expression(self) -> Expression:
        body = self.compare()
        word = self.word_at() if self.peek().isalpha() else ""
        if word in sp.ADVANTAGE:
            pos = self.take(word)
            body = _advantage(body, sp.ADVANTAGE[word], lambda m: self.error(m, pos))
        comment = None
        if self.peek() == "#":
            self.take("#")
            comment = self.text[self.at :].strip() or None
            self.at = len(self.text)
        if self.peek():
            expected = "+, -, *, /, a comparison, adv/dis, # comment or the end"
            if self.peek() == "!":
                expected += " (write the explosion before keep/drop, like 4d6!kh3)"
            raise self.unexpected(expected)
        return _built(Expression, body=body, comment=comment)

    def compare(self):
        left = self.sum()
        if not self.peek() or self.peek() not in "<>=":
            return left
        for op in _COMPARE:
            if self.looking_at(op):
                self.take(op)
                right = self.sum()
                for word in _COMPARE:
                    if self.looking_at(word):
                        raise self.error("Compare only once", self.at + 1)
                return Compare(left, "==" if op == "=" else op, right)
        return left

    def sum(self):
        terms = [self.term()]
        while self.peek() in ("+", "-"):
            terms.append(self.term())
            if len(terms) > MAX_TERMS:
                raise ExpressionTooLargeError(
                    str(self.error(f"That expression has more than {MAX_TERMS} terms"))
                )
        if len(terms) == 1 and terms[0].sign > 0:
            return terms[0].operand
        return _built(Sum, terms=tuple(terms))

    def term(self) -> Term:
        sign = 1
        while self.peek() in ("+", "-"):
            if self.text[self.at] == "-":
                sign = -sign
            self.at += 1
        return _built(Term, sign=sign, operand=self.product())

    def product(self):
        start = self.peek() and self.at + 1
        factors = [(self.unary(), "*", start)]
        while self.peek() in ("*", "/"):
            op = "/" if self.looking_at("/") else "*"
            pos = self.take("//" if self.looking_at("//") else op)
            factors.append((self.unary(), op, pos))
        if len(factors) == 1:
            return factors[0][0]
        others = [f for f, _, _ in factors if not isinstance(f, Constant)]
        if all(op == "*" for _, op, _ in factors) and len(others) <= 1:
            # The old dialect's term: dice (or a number) times numbers, "3d6*2"
            operand = others[0] if others else factors[0][0]
            multiplier = math.prod(f.value for f, _, _ in factors if f is not operand)
            if multiplier > MAX_MULTIPLIER:
                raise self.error(
                    f"Multiply by at most {MAX_MULTIPLIER} in one term", factors[-1][2]
                )
            if multiplier == 1:
                return operand
            return _built(Multiply, left=operand, right=_built(Constant, value=multiplier))
        node = factors[0][0]
        for factor, op, pos in factors[1:]:
            if op == "/":
                if isinstance(factor, Constant) and factor.value == 0:
                    raise self.error("Can't divide by zero", pos)
                node = _built(Divide, left=node, right=factor, rounding="floor")
            else:
                node = _built(Multiply, left=node, right=factor)
            low, high = bounds(node)
            if max(abs(low), abs(high)) > MAX_TOTAL:
                raise ExpressionTooLargeError(
                    str(self.error(f"That could pass {MAX_TOTAL:,}; totals stay below it", pos))
                )
        return node

    def unary(self):
        sign = 1
        while self.peek() in ("+", "-"):
            if self.text[self.at] == "-":
                sign = -sign
            self.at += 1
        node = self.atom()
        return node if sign > 0 else _built(Sum, terms=(_built(Term, sign=-1, operand=node),))

    def atom(self):
        ch = self.peek()
        pos = self.at + 1
        if ch and ch in _DIGITS:
            value, _ = self.number("a number")
            if self.peek() == "d" and self._dice_follows():
                node = self.dice(value, pos)
            else:
                if value > MAX_CONSTANT:
                    raise self.error(f"{value} is too big; numbers go up to 1,000,000", pos)
                node = _built(Constant, value=value)
        elif ch == "d" and self._dice_follows():
            node = self.dice(1, pos)
        elif ch == "(":
            node = self.parenthesised(pos)
        elif ch == "{":
            self.nest(pos)
            self.take("{")
            items = self.items("}")
            self.depth -= 1
            node = self.set_modifiers(SetRoll(tuple(items)), pos)
        elif ch.isalpha() and self.word_at() in sp.FUNCTIONS:
            node = self.function(pos)
        else:
            raise self.unexpected("a number or dice like 3d6")
        return self.labels(node)

    def _dice_follows(self) -> bool:
        """Whether the "d" ahead starts dice: not a word such as Avrae's "dis" ("dF" is fate
        dice)."""
        nxt = self.low[self.at + 1 : self.at + 2]
        return not (nxt.isalpha() and nxt != "f") and self.word_at() not in sp.ADVANTAGE

    def parenthesised(self, pos: int):
        self.nest(pos)
        self.take("(")
        items = self.items(")")
        self.depth -= 1
        if len(items) > 1 or self._trailing_comma:
            return self.set_modifiers(SetRoll(tuple(items)), pos)
        (inner,) = items
        if self.peek() == "d" and self._dice_follows():
            if isinstance(inner, Constant):
                return self.dice(inner.value, pos)
            return self.dice(inner, pos)
        return inner

    def items(self, close: str) -> list:
        items = [self.sum()]
        self._trailing_comma = False
        while self.peek() == ",":
            self.take(",")
            if self.peek() == close:
                self._trailing_comma = True
                break
            items.append(self.sum())
            if len(items) > MAX_SET_ITEMS:
                raise ExpressionTooLargeError(
                    str(self.error(f"A set holds at most {MAX_SET_ITEMS} expressions"))
                )
        if self.peek() != close:
            raise self.unexpected(f"',' or {close!r}")
        self.take(close)
        return items

    def function(self, pos: int):
        name = self.word_at()
        self.take(name)
        if self.peek() != "(":
            raise self.unexpected(f"'(' after {name}")
        self.nest(pos)
        self.take("(")
        inner = self.sum()
        if self.peek() != ")":
            raise self.unexpected("')'")
        self.take(")")
        self.depth -= 1
        if name == "abs":
            return Abs(inner)
        if isinstance(inner, Divide):
            return Divide(inner.left, inner.right, name)
        return inner  # a whole number already: floor, ceil and round change nothing

    def labels(self, node):
        while self.peek() == "[":
            pos = self.at + 1
            end = self.text.find("]", self.at)
            if end < 0:
                raise self.error("A label opened with '[' needs its ']'", pos)
            text = " ".join(self.text[self.at + 1 : end].split())
            if not text or len(text) > _LABEL_MAX or "[" in text:
                raise self.error(f"A label is 1 to {_LABEL_MAX} characters, no brackets", pos)
            self.at = end + 1
            node = Label(node, text)
        return node

    # --- dice and their modifiers ------------------------------------------------------------

    def dice(self, count, pos: int):
        self.take("d")
        sides_pos = self.at + 1
        if self.peek() == "%":
            self.take("%")
            sides = 100
        elif self.peek() == "f":
            self.take("f")
            sides = FATE
        else:
            sides, sides_pos = self.number("the number of sides after 'd', like d6 or d%")
        if isinstance(count, int):
            if count < 1:
                raise self.error(f"Roll at least 1 die (got {count})", pos)
            most = count
        else:
            low, most = bounds(count)
            if low < 0:
                raise self.error("A rolled number of dice can't be below 0", pos)
        if most > MAX_DICE:
            raise ExpressionTooLargeError(
                str(self.error(f"{most} dice is too many; the most one expression rolls is "
                               f"{MAX_DICE}", pos))
            )  # fmt: skip
        if sides != FATE and sides < MIN_SIDES:
            raise self.error(f"A die needs at least {MIN_SIDES} sides (got d{sides})", sides_pos)
        if sides != FATE and sides > MAX_SIDES:
            raise self.error(f"d{sides} is too big; the biggest die is a d{MAX_SIDES}", sides_pos)
        self.dice_total += most
        if self.dice_total > MAX_DICE:
            raise ExpressionTooLargeError(
                str(self.error(f"That is {self.dice_total} dice in all; the most one expression "
                               f"rolls is {MAX_DICE}", pos))
            )  # fmt: skip
        faces = range(-1, 2) if sides == FATE else range(1, sides + 1)
        self.where = {}
        parts = self.modifiers(faces, on_set=False, count=count)
        node = _built(Dice, count=count, sides=sides, **{**_NO_MODIFIERS, **parts})
        self._check_dice(node, faces, pos)
        return node

    def set_modifiers(self, node: SetRoll, pos: int):
        parts = self.modifiers(None, on_set=True, count=len(node.items))
        if not parts:
            return node
        return SetRoll(node.items, parts.get("keep"), parts.get("counting"))

    def modifiers(self, faces, *, on_set: bool, count) -> dict:
        """Read the modifiers after dice (``faces``) or a set (``faces`` None), by the table."""
        parts: dict = {}
        stage = 0
        tally = _Tally()
        while True:
            spaced = self.skip()
            found = self._spelling(spaced)
            if found is None:
                break
            spelling, pos = found
            what = "a set" if on_set else "dice"
            if on_set and not spelling.on_sets:
                raise self.error(f"{spelling.text!r} works on dice, not on {what}", pos)
            if spelling.stage < stage:
                raise self.error(
                    f"Write {sp.STAGE_NAMES[spelling.stage]} before "
                    f"{sp.STAGE_NAMES[stage]}, like 4d6r1!kh3", pos
                )  # fmt: skip
            stage = spelling.stage
            if (
                spelling.construct == "keep"
                and self.peek() in "<>="
                and spelling.text in sp.SELECT_AFTER
            ):
                spelling = spelling._replace(construct="select", argument="condition", strict=True)
                spelling = spelling._replace(kind=sp.SELECT_AFTER[spelling.text])
            construct = spelling.construct
            if construct in ("keep", "select") and "keep" in parts:
                raise self.error("Keep or drop once per roll", pos)
            if construct == "keep":
                parts["keep"] = self._keep(spelling, count, pos)
            elif construct in ("min", "max"):
                parts["clamp"] = self._clamp(parts.get("clamp") or Clamp(), spelling, pos)
            else:
                self._conditional(parts, tally, spelling, self.condition(spelling, faces, pos), pos)
        return parts

    def _keep(self, spelling, count, pos: int) -> Keep:
        """A keep or drop (``kh3``, ``dl``) and its count, checked against the dice rolled."""
        amount = 1
        ahead = self.peek()
        if ahead and ahead in _DIGITS:
            amount, _ = self.number("a number")
        word = _KEEP_WORDS[spelling.kind]
        if amount < 1:
            raise self.error(f"{word.capitalize()} at least 1 die", pos)
        n = count if isinstance(count, int) else None
        if n is not None and spelling.kind in ("kh", "kl") and amount > n:
            raise self.error(f"Can't keep {amount} dice out of {n}", pos)
        if n is not None and spelling.kind in ("dh", "dl") and amount >= n:
            raise self.error(f"Can't drop {amount} dice out of {n}: at least one must stay", pos)
        return _built(Keep, kind=spelling.kind, count=amount)

    def _clamp(self, clamp: Clamp, spelling, pos: int) -> Clamp:
        """``clamp`` with the minimum or maximum just read (``mi2``, ``ma5``), each given once."""
        construct = spelling.construct
        value, _ = self.number(f"a number after {spelling.text!r}, like 4d6mi2")
        if getattr(clamp, "minimum" if construct == "min" else "maximum") is not None:
            raise self.error(f"Give the {construct}imum once", pos)
        lo = value if construct == "min" else clamp.minimum
        hi = value if construct == "max" else clamp.maximum
        if lo is not None and hi is not None and lo > hi:
            raise self.error(f"A minimum of {lo} is above the maximum of {hi}", pos)
        return Clamp(lo, hi)

    def _conditional(self, parts: dict, tally: _Tally, spelling, conditions, pos: int) -> None:
        """Put a modifier with conditions (select, reroll, explode, success, failure) in
        ``parts``; successes and failures gather in ``tally`` as they come."""
        construct = spelling.construct
        if construct == "select":
            parts["keep"] = Select(spelling.kind == "keep", conditions)
        elif construct == "reroll":
            old = parts.get("reroll")
            if old is not None and old.kind != spelling.kind:
                raise self.error("Reroll once or until, not both", pos)
            before = old.conditions if old else ()
            parts["reroll"] = Reroll(spelling.kind, before + conditions)
        elif construct == "explode":
            if "explode" in parts:
                raise self.error("Explode once per roll", pos)
            parts["explode"] = _built(Explode, kind=spelling.kind, conditions=conditions)
        elif construct == "success":
            tally.success.extend(conditions)
        else:
            if tally.failure_kind not in (None, spelling.kind):
                raise self.error("Count failures or subtract them, not both", pos)
            tally.failure_kind = spelling.kind
            tally.failure.extend(conditions)
        if construct in ("success", "failure"):
            if tally.failure_kind == "subtract" and not tally.success:
                raise self.error(
                    "f and df subtract failures from successes: give the success "
                    "target first, like 8d6>=5f1", pos
                )  # fmt: skip
            if tally.failure_kind == "count" and tally.success:
                raise self.error("Count successes or failures; df subtracts them", pos)
            parts["counting"] = Count(tuple(tally.success), tuple(tally.failure))

    def _spelling(self, spaced: bool):
        """The modifier spelling ahead and its position, or None."""
        if self.at >= len(self.text):
            return None
        pos = self.at + 1
        ch = self.low[self.at]
        if ch in "<>=" and not spaced:
            return sp.BARE_SUCCESS, pos
        candidates = sp.BY_FIRST.get(ch)
        if candidates is None and not ch.isalpha():
            return None
        if ch.isalpha():
            word = self.word_at()
            if word in sp.ADVANTAGE or word in sp.FUNCTIONS:
                return None  # words of their own, not "d" + "is"
        spaced_inside = self.at + 1 < len(self.text) and self.text[self.at + 1].isspace()
        for spelling in candidates or ():
            if self.low.startswith(spelling.text, self.at) or (
                spaced_inside and self.looking_at(spelling.text)
            ):
                self.take(spelling.text)
                return spelling, pos
        if ch.isalpha():
            raise self.unexpected("a dice modifier, +, -, * or the end")
        return None

    def condition(self, spelling: sp.Spelling, faces, pos: int) -> tuple[Condition, ...]:
        """The comparison after a modifier, read by its spelling's meaning (module docstring
        of ``spellings``)."""
        op = None
        ahead = self.peek()
        for word in (">=", "<=", ">", "<", "=") if ahead and ahead in "<>=" else ():
            if self.looking_at(word):
                self.take(word)
                op = word
                break
        ahead = self.peek()
        if op is None and not (ahead and ahead in _DIGITS):
            if spelling.default is None or faces is None:
                raise self.unexpected(f"a comparison after {spelling.text or 'the dice'!r}")
            face = faces[-1] if spelling.default == "max" else faces[0]
            self.where[spelling.construct] = pos
            return (_built(Condition, op="=", value=face),)
        value, self.where[spelling.construct] = self.number("a number to compare with")
        if op is None:
            condition = _built(Condition, op=spelling.bare, value=value)
        elif op in (">", "<") and spelling.strict:
            condition = Condition(">=", value + 1) if op == ">" else Condition("<=", value - 1)
        else:
            condition = Condition({">": ">=", "<": "<="}.get(op, op), value)
        if faces is not None and (
            (condition.op == ">=" and condition.value == faces[-1])
            or (condition.op == "<=" and condition.value == faces[0])
        ):
            condition = _built(
                Condition, op="=", value=condition.value
            )  # one face: "6 or more" on a d6 is 6
        return (condition,)

    def _check_dice(self, node: Dice, faces: range, pos: int) -> None:
        """Refuse dice that could never finish rolling, or whose modifier never applies."""
        reroll, explode = node.reroll, node.explode
        at_reroll = self.where.get("reroll", pos)
        pos = self.where.get("explode", pos)
        landing = faces
        if reroll is not None:
            hit = matching_count(reroll.conditions, faces)
            if reroll.kind == "until" and hit == len(faces):
                raise self.error(
                    f"{reroll} rerolls every face of a d{node.sides}, so it would never stop",
                    at_reroll,
                )
            if reroll.kind == "until" and hit and explode is not None:
                landing = [f for f in faces if not matches(reroll.conditions, f)]
        if explode is not None:
            hit = matching_count(explode.conditions, landing)
            if explode.kind in ("add", "compound", "penetrate") and hit == len(landing):
                raise self.error(
                    f"Exploding on {said(explode.conditions)} would explode on every face of a "
                    f"d{node.sides} and never stop; explode on fewer faces", pos
                )  # fmt: skip
            if not hit:
                raise self.error(
                    f"A d{node.sides} never rolls {said(explode.conditions)}, so it could never "
                    "explode", pos
                )  # fmt: skip


def _advantage(body, keep: str, error):
    """Avrae's ``adv``/``dis``: the first single d20 is rolled twice, keeping the higher (or
    lower): ``1d20+5 adv`` is ``2d20kh1 + 5``."""
    for node in walk(body):
        if (
            isinstance(node, Dice)
            and node.count == 1
            and node.sides == 20
            and node.keep is None
            and node.counting is None
        ):
            twice = Dice(2, 20, node.reroll, node.explode, node.clamp, Keep(keep, 1))
            return replace(body, node, twice)
    raise error("adv and dis roll a single d20 twice: the expression needs a 1d20")


#: Texts whose trees are kept: a table rolls the same few expressions all night.
PARSE_CACHE_SIZE = 1024


def parse(text: str) -> Expression:
    """Read a dice expression (grammar in this module's docstring, spellings in
    ``spellings.MODIFIERS``) into its frozen parse tree.

    Errors name the position (1-based): ``Unexpected 'x' at position 4 in '3d6y'; ...``, with a
    "did you mean" where a word is close to a known spelling. The tree is frozen, so one text's
    tree is kept and shared (as d20 keeps its parsed trees): a roll from text costs the roll,
    not the parse.
    """
    if not isinstance(text, str):
        raise ExpressionError(f"A dice expression is text like '3d6+2', not {text!r}.")
    return _parse(text)


@functools.lru_cache(maxsize=PARSE_CACHE_SIZE)
def _parse(text: str) -> Expression:
    # Refusals raise, and are not kept: only trees that parsed are.
    if len(text) > MAX_LENGTH:
        raise ExpressionTooLargeError(
            f"That expression is {len(text)} characters long; the most is {MAX_LENGTH}."
        )
    if not text.strip():
        raise ExpressionError("Type a dice expression, like 3d6+2 or 4d6kh3.")
    if any(ch in text for ch in "\x00\r\n"):
        raise ExpressionError("A dice expression is one line of text.")
    return _Parser(text).expression()


def _coerce(text_or_expr: str | Expression) -> Expression:
    if isinstance(text_or_expr, Expression):
        return text_or_expr
    return parse(text_or_expr)


__all__ = ["PARSE_CACHE_SIZE", "parse"]
