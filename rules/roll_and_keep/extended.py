"""Roll and keep (seed 001): complex and extended actions.

Seed: such actions "will require multiple rolls with a certain number of successes in each round
of rolling"; ``ExtendedAction`` is an immutable tracker of the rounds.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from typing import Any

from rules.core import IllegalMoveError, Result, RulesError, check_int
from rules.roll_and_keep.rolls import RollResult

# --- complex and extended actions -------------------------------------------------------------


class ExtendedStatus(enum.StrEnum):
    IN_PROGRESS = "in_progress"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


@dataclasses.dataclass(frozen=True)
class ExtendedRound(Result):
    """One round of rolling in an extended action: its kept successes and whether it botched."""

    successes: int
    botch: bool = False


@dataclasses.dataclass(frozen=True)
class ExtendedAction(Result):
    """A complex or extended action (seed: "will require multiple rolls with a certain number of
    successes in each round of rolling. The exact number of successes required … is determined
    by the GM").

    ``target`` is the GM's total of successes; ``minimum`` (optional) the successes each round
    must reach. Successes accumulate round by round; the action succeeds once ``accumulated``
    reaches ``target``. A round under the minimum fails the action at once and its successes do
    not count (RULES-NOTES: "optionally a per-round minimum"). A botched round is recorded and
    counts as its 0 successes; whether it has further consequences is the GM's call.
    ``accumulated`` and ``status`` are worked out from the rounds, never set by hand.
    """

    target: int
    minimum: int | None = None
    rounds: tuple[ExtendedRound, ...] = ()
    accumulated: int = dataclasses.field(init=False)
    status: ExtendedStatus = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        check_int(self.target, "The successes needed for the action", low=1)
        if self.minimum is not None:
            check_int(self.minimum, "The successes needed in each round", low=0)
        if not isinstance(self.rounds, tuple) or not all(
            isinstance(r, ExtendedRound) for r in self.rounds
        ):
            raise RulesError("The rounds of an extended action must be a tuple of rounds.")
        accumulated, status = 0, ExtendedStatus.IN_PROGRESS
        for number, round_ in enumerate(self.rounds, start=1):
            if status is not ExtendedStatus.IN_PROGRESS:
                raise IllegalMoveError(
                    f"Round {number} comes after the action was already {status.value}."
                )
            check_int(round_.successes, "The successes of a round", low=0)
            if self.minimum is not None and round_.successes < self.minimum:
                status = ExtendedStatus.FAILED
            else:
                accumulated += round_.successes
                if accumulated >= self.target:
                    status = ExtendedStatus.SUCCEEDED
        object.__setattr__(self, "accumulated", accumulated)
        object.__setattr__(self, "status", status)

    @property
    def finished(self) -> bool:
        return self.status is not ExtendedStatus.IN_PROGRESS

    @property
    def succeeded(self) -> bool:
        return self.status is ExtendedStatus.SUCCEEDED

    @property
    def failed(self) -> bool:
        return self.status is ExtendedStatus.FAILED

    @property
    def remaining(self) -> int:
        """Successes still needed (0 once reached)."""
        return max(0, self.target - self.accumulated)

    @property
    def last_round(self) -> ExtendedRound | None:
        """What the latest ``add_round`` recorded (None before the first round)."""
        return self.rounds[-1] if self.rounds else None

    def add_round(self, result: RollResult | int) -> ExtendedAction:
        """A new tracker with one more round: a ``RollResult`` or a number of successes."""
        if self.finished:
            raise IllegalMoveError(
                f"This action has already {self.status.value}; it takes no more rounds."
            )
        if isinstance(result, RollResult):
            round_ = ExtendedRound(successes=result.successes, botch=result.botch)
        else:
            round_ = ExtendedRound(successes=check_int(result, "The successes of a round", low=0))
        return dataclasses.replace(self, rounds=(*self.rounds, round_))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExtendedAction:
        """Rebuild from ``to_dict()`` output; a stored total or status that disagrees with the
        stored rounds is refused."""
        if not isinstance(data, Mapping) or "target" not in data:
            raise RulesError("An extended action needs at least its 'target' of successes.")
        raw_rounds = data.get("rounds", [])
        if isinstance(raw_rounds, str | bytes) or not isinstance(raw_rounds, Iterable):
            raise RulesError("An extended action's 'rounds' must be a list.")
        rounds = []
        for raw in raw_rounds:
            if not isinstance(raw, Mapping) or "successes" not in raw:
                raise RulesError(f"A round must record its 'successes', not {raw!r}.")
            botch = raw.get("botch", False)
            if not isinstance(botch, bool):
                raise RulesError(f"A round's 'botch' must be true or false, not {botch!r}.")
            rounds.append(ExtendedRound(successes=raw["successes"], botch=botch))
        action = cls(target=data["target"], minimum=data.get("minimum"), rounds=tuple(rounds))
        if "accumulated" in data and data["accumulated"] != action.accumulated:
            raise RulesError("The stored successes so far disagree with the stored rounds.")
        if "status" in data and data["status"] != action.status.value:
            raise RulesError("The stored status disagrees with the stored rounds.")
        return action
