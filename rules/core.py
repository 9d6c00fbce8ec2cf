"""Shared core of the rules engine: errors, dice, exact distributions, result objects.

Nothing here knows about a particular game, and nothing here imports another module of
``rules`` (the system packages import this one, so it must never import back). Every system
builds on these pieces:

- ``RulesError`` and its subclasses carry a message a player understands.
- ``default_rng()`` is the production dice source (``secrets.SystemRandom``); every roll
  function takes ``rng`` keyword-only so tests can pass a seeded ``random.Random``.
- ``Dist`` is an exact distribution ``{outcome: Fraction}``; the helpers combine them by
  convolution (icepool/dyce style), never by enumerating every roll.
- ``Result`` is the base of the frozen result dataclasses; ``to_dict()`` makes them JSON-ready.
"""

from __future__ import annotations

import dataclasses
import enum
import secrets
from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    import random  # noqa: S311 -- only the type of the rng parameter; dice use SystemRandom

    Rng: TypeAlias = random.Random
else:
    Rng: TypeAlias = Any

#: Hard caps so a hostile or mistaken input can never hang the server.
MAX_POOL = 100
MAX_EXPLOSIONS = 100
MAX_SIDES = 1000

Dist = dict[int, Fraction]


# --- errors -----------------------------------------------------------------------------


class RulesError(ValueError):
    """A rule was asked something it cannot answer; the message is for the player."""


class UnknownNameError(RulesError):
    """A colour, attribute, difficulty, ... name that the ruleset does not know."""


class OutOfRangeError(RulesError):
    """A number outside what the rule allows (a die value, a skill, a pool size...)."""


class PoolTooLargeError(OutOfRangeError):
    """A pool or an explosion chain past the sane cap."""


class IllegalMoveError(RulesError):
    """A move the rules forbid in the current state (adjusting a jammed die, ...)."""


# --- dice source ---------------------------------------------------------------------------


def default_rng() -> Rng:
    """The production dice source: the operating system's CSPRNG."""
    return secrets.SystemRandom()


def resolve_rng(rng: Rng | None) -> Rng:
    """The rng a roll function was given, or the production CSPRNG when it was given none."""
    return default_rng() if rng is None else rng


def roll_die(sides: int, rng: Rng) -> int:
    """One fair die with faces 1..sides."""
    return rng.randint(1, sides)


def roll_dice(count: int, sides: int, rng: Rng) -> tuple[int, ...]:
    """``count`` fair dice, in the order rolled."""
    check_pool(count)
    return tuple(rng.randint(1, sides) for _ in range(count))


# --- validation helpers ------------------------------------------------------------------------


def check_int(value: Any, what: str, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int or raise a clear ``OutOfRangeError``/``RulesError``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{what} must be a whole number, not {value!r}.")
    if low is not None and value < low:
        raise OutOfRangeError(f"{what} must be at least {low} (got {value}).")
    if high is not None and value > high:
        raise OutOfRangeError(f"{what} must be at most {high} (got {value}).")
    return value


def check_pool(count: Any, what: str = "The number of dice") -> int:
    """A dice pool size: 0..MAX_POOL."""
    check_int(count, what, low=0)
    if count > MAX_POOL:
        raise PoolTooLargeError(
            f"{what} is {count}; the most this table rolls at once is {MAX_POOL}."
        )
    return count


def lookup(name: Any, options: Iterable[str], what: str) -> str:
    """Match ``name`` case-insensitively against ``options`` and return the canonical spelling.

    >>> lookup("black", ["White", "Black"], "colour")
    'Black'
    """
    options = list(options)
    if isinstance(name, str):
        wanted = name.strip().casefold()
        for option in options:
            if option.casefold() == wanted:
                return option
    choices = ", ".join(options)
    raise UnknownNameError(f"Unknown {what} {name!r}; choose one of: {choices}.")


# --- exact distributions ------------------------------------------------------------------------


@cache
def _die(sides: int) -> tuple[tuple[int, Fraction], ...]:
    p = Fraction(1, sides)
    return tuple((face, p) for face in range(1, sides + 1))


def die(sides: int) -> Dist:
    """The distribution of one fair die with faces 1..sides."""
    check_int(sides, "A die's number of sides", low=1, high=MAX_SIDES)
    return dict(_die(sides))


def convolve(a: Mapping[int, Fraction], b: Mapping[int, Fraction]) -> Dist:
    """Distribution of the sum of two independent outcomes."""
    out: Dist = {}
    for x, px in a.items():
        for y, py in b.items():
            out[x + y] = out.get(x + y, Fraction(0)) + px * py
    return out


def sum_of(count: int, sides: int) -> Dist:
    """Distribution of the sum of ``count`` fair dice (cached)."""
    check_pool(count)
    check_int(sides, "A die's number of sides", low=1, high=MAX_SIDES)
    return dict(_sum_of(count, sides))


@lru_cache(maxsize=1024)
def _sum_of(count: int, sides: int) -> tuple[tuple[int, Fraction], ...]:
    if count == 0:
        return ((0, Fraction(1)),)
    dist = convolve(dict(_sum_of(count - 1, sides)), dict(_die(sides)))
    return tuple(sorted(dist.items()))


def shift(dist: Mapping[int, Fraction], amount: int) -> Dist:
    """Add a constant to every outcome."""
    return {x + amount: p for x, p in dist.items()}


def binomial(n: int, p: Fraction) -> Dist:
    """Number of successes among ``n`` independent trials each succeeding with ``p``."""
    check_pool(n)
    out: Dist = {0: Fraction(1)}
    q = 1 - p
    for _ in range(n):
        nxt: Dist = {}
        for k, pk in out.items():
            if q:
                nxt[k] = nxt.get(k, Fraction(0)) + pk * q
            if p:
                nxt[k + 1] = nxt.get(k + 1, Fraction(0)) + pk * p
        out = nxt
    return out


# --- results -----------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """Turn dataclasses, enums, Fractions and tuples into JSON-ready values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    return value


class Result:
    """Mixin for the frozen result dataclasses: ``to_dict()`` gives plain JSON-ready data."""

    def to_dict(self) -> dict[str, Any]:
        return _plain(self)


@dataclasses.dataclass(frozen=True)
class Die(Result):
    """One die as rolled, kept for display and audit.

    ``value`` is what counts now (after any benny adjustment); ``rolled`` is what the die showed.
    ``kept`` is False for a die dropped by a keep rule; ``exploded`` is True when it added a die;
    ``source`` is the index of the die whose explosion produced this one (None for the pool).
    """

    sides: int
    rolled: int
    value: int
    kept: bool = True
    exploded: bool = False
    bonus: int = 0
    source: int | None = None
