"""Dice expressions: the lexer and the recursive-descent parser.

The grammar is in the package docstring (``rules.expression``); errors name the 1-based
position.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from typing import NamedTuple

from rules.expression.tree import (
    _KEEP_WORDS,
    KEEP_KINDS,
    MAX_CONSTANT,
    MAX_DICE,
    MAX_LENGTH,
    MAX_MULTIPLIER,
    MAX_TERMS,
    Constant,
    Dice,
    Expression,
    ExpressionError,
    ExpressionTooLargeError,
    Keep,
    Term,
    _dice_problem,
    _too_many_dice,
)

# --- lexer and parser -----------------------------------------------------------------------


class _Token(NamedTuple):
    kind: str  # num d % kh kl dh dl ! >= + - * end
    text: str
    pos: int  # 1-based position in the text


_SINGLE = {"%": "%", "!": "!", "+": "+", "-": "-", "*": "*"}
_DIGITS = "0123456789"  # not str.isdigit(): that accepts other scripts' digits


def _lex(text: str) -> Iterator[_Token]:
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        low = ch.lower()
        j = i + 1  # the next character that is not whitespace: "k h 3" is "kh3"
        while j < n and text[j].isspace():
            j += 1
        nxt = text[j].lower() if j < n else ""
        if ch.isspace():
            i += 1
        elif ch in _DIGITS:
            j = i
            while j < n and text[j] in _DIGITS:
                j += 1
            yield _Token("num", text[i:j], i + 1)
            i = j
        elif low in ("d", "k"):
            if nxt in ("h", "l"):  # "d" before h/l can only be a drop: dice need a number
                yield _Token(low + nxt, text[i : j + 1], i + 1)
                i = j + 1
            else:
                yield _Token("d" if low == "d" else "kh", ch, i + 1)
                i += 1
        elif ch == ">" and nxt == "=":
            yield _Token(">=", text[i : j + 1], i + 1)
            i = j + 1
        elif ch in _SINGLE:
            yield _Token(_SINGLE[ch], ch, i + 1)
            i += 1
        else:
            raise ExpressionError(
                f"Unexpected {ch!r} at position {i + 1} in {text!r}; dice expressions use "
                "digits, d, %, k, h, l, !, >=, +, - and *."
            )
    yield _Token("end", "", n + 1)


def _syntax_error(text: str, token: _Token, expected: str) -> ExpressionError:
    what = "end" if token.kind == "end" else repr(token.text)
    return ExpressionError(
        f"Unexpected {what} at position {token.pos} in {text!r}; expected {expected}."
    )


def _placed(text: str, token: _Token, message: str) -> ExpressionError:
    return ExpressionError(f"{message} (position {token.pos} in {text!r})")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = list(_lex(text))
        self.at = 0
        self.dice_total = 0

    def peek(self) -> _Token:
        return self.tokens[self.at]

    def take(self) -> _Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def expect_number(self, expected: str) -> tuple[int, _Token]:
        token = self.peek()
        if token.kind != "num":
            raise _syntax_error(self.text, token, expected)
        self.take()
        return int(token.text), token  # at most MAX_LENGTH digits: int() is safe

    def expression(self) -> Expression:
        terms = [self.term(1)]
        while self.peek().kind in ("+", "-"):
            terms.append(self.term(1))
            if len(terms) > MAX_TERMS:
                raise ExpressionTooLargeError(
                    f"That expression has more than {MAX_TERMS} terms "
                    f"(position {self.peek().pos} in {self.text!r})"
                )
        token = self.peek()
        if token.kind != "end":
            expected = "+, -, * or the end"
            if token.kind == "!":
                expected += " (write the explosion before keep/drop, like 4d6!kh3)"
            raise _syntax_error(self.text, token, expected)
        return Expression(tuple(terms))

    def term(self, sign: int) -> Term:
        while self.peek().kind in ("+", "-"):
            if self.take().kind == "-":
                sign = -sign
        factors = [self.factor()]
        while self.peek().kind == "*":
            self.take()
            factors.append(self.factor())
        dice = [(node, tok) for node, tok in factors if isinstance(node, Dice)]
        if len(dice) > 1:
            raise _placed(self.text, dice[1][1], "Dice can only be multiplied by a number")
        operand = dice[0][0] if dice else factors[0][0]
        multiplier = math.prod(node.value for node, _ in factors if node is not operand)
        if multiplier > MAX_MULTIPLIER:
            raise _placed(
                self.text, factors[-1][1], f"Multiply by at most {MAX_MULTIPLIER} in one term"
            )
        return Term(sign, operand, multiplier)

    def factor(self) -> tuple[Dice | Constant, _Token]:
        token = self.peek()
        if token.kind == "num":
            value, _ = self.expect_number("a number")
            if self.peek().kind == "d":
                return self.dice(value, token), token
            if value > MAX_CONSTANT:
                raise _placed(self.text, token, f"{value} is too big; numbers go up to 1,000,000")
            return Constant(value), token
        if token.kind == "d":
            return self.dice(1, token), token
        raise _syntax_error(self.text, token, "a number or dice like 3d6")

    def dice(self, count: int, start: _Token) -> Dice:
        self.take()  # the "d"
        places = {"count": start, "too many": start, "sides": self.peek()}
        if self.peek().kind == "%":
            self.take()
            sides = 100
        else:
            sides, _ = self.expect_number("the number of sides after 'd', like d6 or d%")
        explode_at = None
        if self.peek().kind == "!":
            places["explode"] = self.take()
            if self.peek().kind == ">=":
                self.take()
                explode_at, places["explode"] = self.expect_number("a number after '>='")
            elif self.peek().kind == "num":
                explode_at, places["explode"] = self.expect_number("a number")
            else:
                explode_at = sides
        keep = None
        if self.peek().kind in KEEP_KINDS:
            places["keep"] = kind = self.take()
            word = _KEEP_WORDS[kind.kind]
            amount, _ = self.expect_number(f"how many dice to {word} after {kind.text!r}")
            if amount < 1:
                raise _placed(self.text, kind, f"{word.capitalize()} at least 1 die")
            keep = Keep(kind.kind, amount)
        problem = _dice_problem(count, sides, explode_at, keep)
        if problem:
            error = _placed(self.text, places[problem[0]], problem[1].rstrip("."))
            if problem[0] == "too many":
                raise ExpressionTooLargeError(str(error))
            raise error
        self.dice_total += count
        if self.dice_total > MAX_DICE:
            error = _placed(self.text, start, _too_many_dice(self.dice_total).rstrip("."))
            raise ExpressionTooLargeError(str(error))
        return Dice(count, sides, explode_at, keep)


#: Texts whose trees are kept: a table rolls the same few expressions all night.
PARSE_CACHE_SIZE = 1024


def parse(text: str) -> Expression:
    """Read a dice expression (grammar in the package docstring) into its frozen parse tree.

    Errors name the position (1-based): ``Unexpected 'x' at position 4 in '3d6x'; ...``.
    The tree is frozen, so one text's tree is kept and shared (as d20 keeps its parsed trees):
    a roll from text costs the roll, not the parse.
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
    return _Parser(text).expression()


def _coerce(text_or_expr: str | Expression) -> Expression:
    if isinstance(text_or_expr, Expression):
        return text_or_expr
    return parse(text_or_expr)
