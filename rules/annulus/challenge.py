"""Annulus (seed 000): the operation challenge as an immutable value, and its set-up.

Seed: the GM "secretly roll[s] six six-sided dice in a line" (a 1 hides that position) and
"rolls six of 12-sided dice". ``Challenge`` keeps the whole chain, hidden dice included, with
the views each person may see (``player_view`` never names a chain position).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from rules.annulus.chain import (
    FACES,
    MAX_LENGTH,
    MIN_LENGTH,
    _check_values,
    is_solved,
    min_adjustments,
)
from rules.annulus.ruleset import _canonical_types, _ruleset
from rules.core import (
    MAX_SIDES,
    Dist,
    OutOfRangeError,
    Result,
    Rng,
    RulesError,
    binomial,
    check_int,
    lookup,
    resolve_rng,
    roll_dice,
)

# --- the challenge ------------------------------------------------------------------------------


class ChallengeStatus(enum.StrEnum):
    IN_PROGRESS = "in_progress"
    SOLVED = "solved"
    FAILED = "failed"


def _index_tuple(value: Any, what: str, length: int) -> tuple[int, ...]:
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise RulesError(f"{what} must be a list of positions.")
    items = list(value)
    for i in items:
        check_int(i, f"A position in {what.lower()}", low=0, high=length - 1)
    if len(set(items)) != len(items):
        raise RulesError(f"{what} names a position twice.")
    return tuple(sorted(items))


def _name_tuple(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise RulesError(f"{what} must be a list of names.")
    items = tuple(value)
    for name in items:
        if not isinstance(name, str) or not name.strip():
            raise RulesError(f"{what} holds {name!r}, which is not a name.")
    if len({n.casefold() for n in items}) != len(items):
        raise RulesError(f"{what} names the same thing twice.")
    return items


@dataclasses.dataclass(frozen=True)
class Challenge(Result):
    """An operation challenge: an immutable value; every move returns a new one.

    ``values`` holds every die of the chain, the hidden ones too (RULES-NOTES: "rolled at setup
    too, stored server-side, shown to the GM only"); ``hidden`` and ``jammed`` are chain
    positions. ``needed`` is fixed when the GM announces the difficulty. ``mask`` is the secret
    d6 row as rolled (None for a challenge laid out by hand); ``origin_values`` and
    ``origin_hidden`` keep the layout as set up, the secret the web layer commits to.
    """

    difficulty: str
    needed: int
    types: tuple[str, ...]
    values: tuple[int, ...]
    hidden: tuple[int, ...] = ()
    jammed: tuple[int, ...] = ()
    unavailable_abilities: tuple[str, ...] = ()
    mask: tuple[int, ...] | None = None
    origin_values: tuple[int, ...] | None = None
    origin_hidden: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        if not isinstance(self.difficulty, str) or not self.difficulty.strip():
            raise RulesError(f"A challenge's difficulty must be a name, not {self.difficulty!r}.")
        check_int(self.needed, "The successes a challenge needs", low=0)
        types = (self.types,) if isinstance(self.types, str) else self.types
        put("types", _name_tuple(types, "The challenge's types"))
        if not 1 <= len(self.types) <= 2:
            raise RulesError(f"A challenge has one or two types, not {len(self.types)}.")
        values = _check_values(self.values, "The challenge's dice")
        if not MIN_LENGTH <= len(values) <= MAX_LENGTH:
            raise OutOfRangeError(
                f"A challenge has {MIN_LENGTH} to {MAX_LENGTH} dice, not {len(values)}."
            )
        put("values", values)
        n = len(values)
        put("hidden", _index_tuple(self.hidden, "Hidden dice", n))
        put("jammed", _index_tuple(self.jammed, "Jammed dice", n))
        if set(self.hidden) & set(self.jammed):
            raise RulesError("A hidden die cannot be jammed: nobody can adjust it yet.")
        put(
            "unavailable_abilities",
            _name_tuple(self.unavailable_abilities, "Unavailable toolkit abilities"),
        )
        if self.mask is not None:
            if isinstance(self.mask, str) or not isinstance(self.mask, Iterable):
                raise RulesError("The hidden-dice mask must be a list of d6 results.")
            mask = tuple(self.mask)
            if len(mask) != n:
                raise RulesError(f"The hidden-dice mask needs one die per position ({n}).")
            for face in mask:
                check_int(face, "A hidden-dice mask die", low=1, high=MAX_SIDES)
            put("mask", mask)
        origin_values = values if self.origin_values is None else self.origin_values
        origin_values = _check_values(origin_values, "The challenge's original dice")
        if len(origin_values) != n:
            raise RulesError("The original layout must have as many dice as the chain.")
        put("origin_values", origin_values)
        origin_hidden = self.hidden if self.origin_hidden is None else self.origin_hidden
        put("origin_hidden", _index_tuple(origin_hidden, "Originally hidden dice", n))
        if not set(self.hidden) <= set(self.origin_hidden):
            raise RulesError("A die can only be hidden if it was hidden at setup.")
        # Hidden dice cannot be touched, so they still show their original numbers.
        if any(values[i] != origin_values[i] for i in self.hidden):
            raise RulesError("A hidden die's number cannot have changed since setup.")

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        *,
        difficulty: str,
        types: Any,
        values: Iterable[int],
        hidden: Iterable[int] = (),
        jammed: Iterable[int] = (),
        ruleset: Mapping[str, Any] | None = None,
    ) -> Challenge:
        """A challenge laid out by hand (a GM's prepared puzzle, or a test).

        ``difficulty`` and ``types`` are checked against the ruleset (names in any case).
        """
        rules = _ruleset(ruleset)
        name = lookup(difficulty, rules["difficulties"], "difficulty")
        return cls(
            difficulty=name,
            needed=rules["difficulties"][name],
            types=_canonical_types(types, rules),
            values=tuple(_check_values(values, "The challenge's dice")),
            hidden=tuple(hidden),
            jammed=tuple(jammed),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Challenge:
        """Rebuild a challenge stored with ``to_dict()``; every field is validated again."""
        if not isinstance(data, Mapping):
            raise RulesError("A stored challenge must be a mapping.")
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(data) - set(names), key=str)
        if unknown:
            raise RulesError(f"A stored challenge has unknown field(s) {unknown}.")
        missing = [n for n in ("difficulty", "needed", "types", "values") if n not in data]
        if missing:
            raise RulesError(f"A stored challenge lacks field(s) {missing}.")
        return cls(**{n: data[n] for n in names if n in data})

    # -- the chain as each person sees it -------------------------------------------------------

    @property
    def length(self) -> int:
        return len(self.values)

    def visible_indices(self) -> tuple[int, ...]:
        """Chain positions of the dice the players can see, in order."""
        hidden = set(self.hidden)
        return tuple(i for i in range(self.length) if i not in hidden)

    def hidden_indices(self) -> tuple[int, ...]:
        return self.hidden

    def visible_values(self) -> tuple[int, ...]:
        """The players' chain: visible dice only, in order, no placeholder (DESIGN.md)."""
        return tuple(self.values[i] for i in self.visible_indices())

    def visible_jammed(self) -> tuple[int, ...]:
        """Indices into ``visible_values()`` of the jammed dice."""
        jammed = set(self.jammed)
        return tuple(k for k, i in enumerate(self.visible_indices()) if i in jammed)

    def position_of(self, visible_index: int) -> int:
        """The chain position of the ``visible_index``-th die the players see."""
        visible = self.visible_indices()
        check_int(visible_index, "The die's place in the chain", low=0, high=len(visible) - 1)
        return visible[visible_index]

    def visible_index_of(self, position: int) -> int | None:
        """Where a chain position sits among the visible dice (None while hidden)."""
        check_int(position, "The die's position", low=0, high=self.length - 1)
        visible = self.visible_indices()
        return visible.index(position) if position in visible else None

    def pairs_ok(self) -> tuple[bool, ...]:
        """For the UI: does each adjacent pair of VISIBLE dice already differ by one?"""
        chain = self.visible_values()
        return tuple(abs(a - b) == 1 for a, b in zip(chain, chain[1:], strict=False))

    def chain_pairs_ok(self) -> tuple[bool, ...]:
        """The GM's version over the whole chain, hidden dice included."""
        v = self.values
        return tuple(abs(a - b) == 1 for a, b in zip(v, v[1:], strict=False))

    # -- state -------------------------------------------------------------------------------

    @property
    def visible_solved(self) -> bool:
        """Seed: "The players solve the current challenge as-is" (the visible dice)."""
        return is_solved(self.visible_values())

    @property
    def solvable(self) -> bool:
        """RULES-NOTES "Failure" (revised): judged over the chain as the players know it, the
        visible dice in order with hidden positions left out, and again after each reveal."""
        return self.remaining_adjustments is not None

    @property
    def remaining_adjustments(self) -> int | None:
        """GM help: fewest adjustments solving the visible chain (hidden dice left out, as the
        failure rule reads it); None once the jammed visible dice forbid a solution."""
        return min_adjustments(self.visible_values(), self.visible_jammed())

    @property
    def awaiting_reveal(self) -> bool:
        """The visible chain is solved but hidden dice remain: the GM should reveal one."""
        return bool(self.hidden) and self.visible_solved

    @property
    def status(self) -> ChallengeStatus:
        """RULES-NOTES: succeeds "when the chain is solved and no hidden die remains"; fails as
        soon as the jammed visible dice make the visible chain unsolvable. A solved visible chain
        with hidden dice left is still in progress: it waits for the GM's reveal."""
        if not self.hidden and self.visible_solved:
            return ChallengeStatus.SOLVED
        if not self.solvable:
            return ChallengeStatus.FAILED
        return ChallengeStatus.IN_PROGRESS

    @property
    def finished(self) -> bool:
        return self.status is not ChallengeStatus.IN_PROGRESS

    @property
    def can_reveal(self) -> bool:
        """Seed: hidden dice are revealed "only when all visible dice are solved"."""
        return self.awaiting_reveal and not self.finished

    def ability_available(self, ability: str) -> bool:
        """Seed: a failed toolkit check makes "that ability ... unavailable ... for the
        remainder of the challenge"."""
        return ability.casefold() not in {n.casefold() for n in self.unavailable_abilities}

    def layout(self) -> dict[str, Any]:
        """The secret as set up (mask, hidden positions, every die): what the web layer commits
        to once, so the commitment leaks neither count nor position (DESIGN.md)."""
        return {
            "mask": None if self.mask is None else list(self.mask),
            "hidden": list(self.origin_hidden or ()),
            "values": list(self.origin_values or ()),
        }

    def player_view(self) -> dict[str, Any]:
        """What players may see: the visible dice only, in order; nothing about hidden dice
        (not their positions, numbers or count). Indices are into ``values`` here."""
        return {
            "difficulty": self.difficulty,
            "needed": self.needed,
            "types": list(self.types),
            "values": list(self.visible_values()),
            "jammed": list(self.visible_jammed()),
            "pairs_ok": list(self.pairs_ok()),
            "visible_solved": self.visible_solved,
            "visible_min_adjustments": self.remaining_adjustments,
            "status": self.status.value,
            "unavailable_abilities": list(self.unavailable_abilities),
        }

    def gm_view(self) -> dict[str, Any]:
        """Everything, for the GM: the whole chain, hidden positions and numbers, GM help."""
        return {
            **self.to_dict(),
            "length": self.length,
            "visible_indices": list(self.visible_indices()),
            "visible_values": list(self.visible_values()),
            "pairs_ok": list(self.pairs_ok()),
            "chain_pairs_ok": list(self.chain_pairs_ok()),
            "visible_solved": self.visible_solved,
            "solvable": self.solvable,
            "remaining_adjustments": self.remaining_adjustments,
            "can_reveal": self.can_reveal,
            "status": self.status.value,
        }


def hidden_count_distribution(
    *, length: int | None = None, ruleset: Mapping[str, Any] | None = None
) -> Dist:
    """How many dice start hidden: each position's secret d6 shows the hidden face ("a result of
    1") with chance 1/6, independently."""
    rules = _ruleset(ruleset)
    n = rules["chain_length"] if length is None else length
    check_int(n, "The chain length", low=MIN_LENGTH, high=MAX_LENGTH)
    return binomial(n, Fraction(1, rules["mask_die_sides"]))


def setup_challenge(
    *,
    difficulty: str,
    types: Any,
    length: int | None = None,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> Challenge:
    """Set up an operation challenge with fresh dice.

    Seed: "they first secretly roll six six-sided dice in a line ... Any of the six-sided dice
    that display a result of 1 ... are considered hidden", then "rolls six of 12-sided dice".
    RULES-NOTES: the hidden positions' d12s are rolled now too (GM only); length 1..12.
    """
    rng = resolve_rng(rng)
    rules = _ruleset(ruleset)
    name = lookup(difficulty, rules["difficulties"], "difficulty")
    canonical = _canonical_types(types, rules)
    n = rules["chain_length"] if length is None else length
    check_int(n, "The chain length", low=MIN_LENGTH, high=MAX_LENGTH)
    mask = roll_dice(n, rules["mask_die_sides"], rng)
    values = roll_dice(n, FACES, rng)
    hidden = tuple(i for i, face in enumerate(mask) if face == rules["hidden_face"])
    return Challenge(
        difficulty=name,
        needed=rules["difficulties"][name],
        types=canonical,
        values=values,
        hidden=hidden,
        mask=mask,
    )
