"""A turn tracker every system can use: teams, turns, rounds, actions and reactions.

Written from seed 003's "The Action Economy" (the only seed that spells turns out; RULES-NOTES
offers the same tracker to conductor's empty dungeon procedure) but free of any one system's
dice: nothing here imports a system module.

- "have the teams take turns together ... the characters on a team may act in any order":
  the turn belongs to a team; its members act in any order until the turn is ended.
  A character added without a team is a team of one.
- "A round is one complete set of turns": the round number goes up each time the turn comes
  back to the first team in the order.
- "During your turn, you may perform one action": one action per character per turn.
- "You can react once per round" and a round is "beginning and ending with yours": the
  reaction window is per character. A spent reaction comes back when that character's own
  team's turn begins, so everyone gets one reaction between two of their own turns, whenever
  in the order their turn falls. A reaction may be used at any time once the tracker has
  started, on one's own turn too.
- "you may move as a free action": movement on one's own turn is never counted
  (``can_move``); moving at another time is a reaction ("Movement as a reaction works normally").

An **initiative order** (``by_initiative``, the way most d20 games take turns) is the same
tracker with every entry a team of one: each has an ``initiative`` (rolled or typed), the order
is always ``initiative_order`` of the entries (highest first; a tie goes to the entry added
first; entries with none yet last, in the order added), and the turn moves down it
(``end_turn``) and back up it (``previous_turn``), a new round after the last entry.

Public: ``Participant``, ``TurnEvent``, ``TurnTracker`` (immutable; every move returns
``(new_tracker, TurnEvent)``): ``add_participant``, ``remove_participant``, ``set_order``,
``start``, ``take_action``, ``use_reaction``, ``end_turn``, ``previous_turn``; an initiative
order's ``add_entry`` and ``set_initiative`` (``initiative_order`` sorts); queries ``current_team``,
``members``, ``waiting``, ``can_act``, ``can_react``, ``can_move``; ``to_dict`` / ``from_dict``.
Moves the rules forbid raise ``IllegalMoveError``; unknown characters ``UnknownNameError``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from rules.core import IllegalMoveError, Result, RulesError, UnknownNameError, check_int, lookup

__all__ = ["INITIATIVE_RANGE", "Participant", "TurnEvent", "TurnTracker", "initiative_order"]

#: An initiative as typed or rolled (a typo of a million is a mistake, not a fast goblin).
INITIATIVE_RANGE = (-999, 9999)


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RulesError(f"{what} must be a non-empty name, not {value!r}.")
    return value.strip()


def _names(values: Any, what: str) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise RulesError(f"{what} must be a list of names.")
    return tuple(_name(v, what) for v in values)


@dataclasses.dataclass(frozen=True)
class Participant(Result):
    """Someone taking turns: a stable ``id``, the ``name`` shown, and the ``team`` they act with."""

    id: str
    name: str
    team: str
    #: Its place in an initiative order (rolled or typed); None until it has one.
    initiative: int | None = None

    def __post_init__(self) -> None:
        for field in ("id", "name", "team"):
            _name(getattr(self, field), f"A participant's {field}")
        if self.initiative is not None:
            _initiative(self.initiative)


def _initiative(value: Any) -> int:
    low, high = INITIATIVE_RANGE
    return check_int(value, "An initiative", low=low, high=high)


def initiative_order(participants: Iterable[Participant]) -> tuple[str, ...]:
    """The ids of an initiative order: highest initiative first; a tie goes to the entry added
    first (``participants`` is in the order they were added), so the order never depends on
    anything but what the table saw; entries with no initiative yet go last, as added."""
    ranked = list(enumerate(participants))
    ranked.sort(
        key=lambda item: (
            item[1].initiative is None,
            -(item[1].initiative or 0),
            item[0],
        )
    )
    return tuple(p.id for _, p in ranked)


@dataclasses.dataclass(frozen=True)
class TurnEvent(Result):
    """What a move did, for the scene log.

    ``team`` is the team whose turn it is after the move (None before the start);
    ``refreshed`` lists the characters whose spent reaction came back with this move.
    """

    kind: str
    round: int
    team: str | None
    character: str | None = None
    new_round: bool = False
    refreshed: tuple[str, ...] = ()
    message: str = ""


@dataclasses.dataclass(frozen=True)
class TurnTracker(Result):
    """Whose turn it is, who has acted this turn, whose reaction is spent.

    ``order`` lists the teams in turn order; ``round`` is 0 until ``start()``; ``turn`` is the
    index in ``order`` of the team whose turn it is; ``acted`` holds the characters that took
    their action this turn, ``reacted`` those whose reaction is spent.
    """

    participants: tuple[Participant, ...] = ()
    order: tuple[str, ...] = ()
    round: int = 0
    turn: int = 0
    acted: tuple[str, ...] = ()
    reacted: tuple[str, ...] = ()
    #: An initiative order: every participant a team of one (its id), in ``initiative_order``.
    by_initiative: bool = False

    def __post_init__(self) -> None:
        # Every tracker, built by a move or from stored data, is checked whole.
        ids = [p.id for p in self.participants]
        if len(set(ids)) != len(ids):
            raise RulesError("A participant appears twice in the turn tracker.")
        if self.by_initiative and any(p.team != p.id for p in self.participants):
            raise RulesError("In an initiative order every entry takes its own turn.")
        teams = {p.team for p in self.participants}
        if len(self.order) != len(set(self.order)) or set(self.order) != teams:
            raise RulesError(
                f"The turn order {list(self.order)} must list each team once: {sorted(teams)}."
            )
        check_int(self.round, "The round", low=0)
        if self.round == 0:
            if self.turn or self.acted or self.reacted:
                raise RulesError("Nobody can have acted or reacted before the start.")
        else:
            check_int(self.turn, "The turn", low=0, high=max(len(self.order) - 1, 0))
            if not self.order:
                raise RulesError("A started turn tracker needs at least one participant.")
        current = set(self.members(self.current_team)) if self.current_team else set()
        if not set(self.acted) <= current:
            raise RulesError("Only members of the team whose turn it is can have acted.")
        if not set(self.reacted) <= set(ids):
            raise RulesError("Only participants can have spent a reaction.")

    # -- queries

    @property
    def started(self) -> bool:
        return self.round > 0

    @property
    def current_team(self) -> str | None:
        """The team whose turn it is (None before ``start()``)."""
        return self.order[self.turn] if self.started else None

    def participant(self, character: Any) -> Participant:
        for p in self.participants:
            if p.id == character:
                return p
        known = ", ".join(p.id for p in self.participants) or "nobody yet"
        raise UnknownNameError(f"{character!r} is not taking turns here; participants: {known}.")

    def members(self, team: str | None) -> tuple[str, ...]:
        """Ids of a team's members, in the order they joined."""
        return tuple(p.id for p in self.participants if p.team == team)

    def waiting(self) -> tuple[str, ...]:
        """Members of the current team who have not taken their action yet."""
        return tuple(c for c in self.members(self.current_team) if c not in self.acted)

    def can_act(self, character: str) -> bool:
        """Seed: "During your turn, you may perform one action"."""
        p = self.participant(character)
        return self.started and p.team == self.current_team and p.id not in self.acted

    def can_react(self, character: str) -> bool:
        """Seed: "You can react once per round"."""
        p = self.participant(character)
        return self.started and p.id not in self.reacted

    def can_move(self, character: str) -> bool:
        """Free movement: on the character's own team's turn, as often as the story allows."""
        p = self.participant(character)
        return self.started and p.team == self.current_team

    # -- moves

    def add_participant(
        self, character: str, *, name: str | None = None, team: str | None = None
    ) -> tuple[TurnTracker, TurnEvent]:
        """Add a character; with no ``team`` they are a team of one (named by their id).

        A team new to the tracker goes last in the order. Team names match case-insensitively.
        """
        character = _name(character, "A participant's id")
        if any(p.id == character for p in self.participants):
            raise IllegalMoveError(f"{character} is already taking turns here.")
        team = _name(character if team is None else team, "A team")
        known = [t for t in self.order if t.casefold() == team.casefold()]
        team = known[0] if known else team
        joined = Participant(id=character, name=_name(name or character, "A name"), team=team)
        order = self.order if known else self.order + (team,)
        tracker = dataclasses.replace(self, participants=self.participants + (joined,), order=order)
        return tracker, self._event("joined", tracker, character, f"{joined.name} joins {team}.")

    def add_entry(
        self, entry: str, *, name: str, initiative: int | None = None
    ) -> tuple[TurnTracker, TurnEvent]:
        """Add an entry to an initiative order (a character, or a free name such as "Goblin 2"),
        with its initiative if it has one; the order sorts. Names are unique, any case."""
        name = _name(name, "An entry's name")
        if any(p.name.casefold() == name.casefold() for p in self.participants):
            raise IllegalMoveError(
                f"{name} is already in the order: give the new one its own name."
            )
        base = self if self.participants else dataclasses.replace(self, by_initiative=True)
        base._require_initiative()
        tracker, _ = base.add_participant(entry, name=name)
        if initiative is not None:
            joined = dataclasses.replace(
                tracker.participants[-1], initiative=_initiative(initiative)
            )
            tracker = dataclasses.replace(
                tracker, participants=tracker.participants[:-1] + (joined,)
            )
        tracker = tracker._sorted()
        told = f" (initiative {initiative})" if initiative is not None else ""
        return tracker, self._event("joined", tracker, entry, f"{name} joins the order{told}.")

    def set_initiative(self, entry: str, initiative: int) -> tuple[TurnTracker, TurnEvent]:
        """Give an entry its initiative (rolled or typed); the order sorts. Mid-round the entry
        whose turn it is keeps the turn."""
        self._require_initiative()
        p = self.participant(entry)
        changed = dataclasses.replace(p, initiative=_initiative(initiative))
        participants = tuple(changed if q.id == p.id else q for q in self.participants)
        tracker = dataclasses.replace(self, participants=participants)._sorted()
        message = f"{p.name}: initiative {changed.initiative}."
        return tracker, self._event("initiative", tracker, p.id, message)

    def previous_turn(self) -> tuple[TurnTracker, TurnEvent]:
        """Back to the turn before (the last of the round before, from the first): a turn
        passed on too soon. Nothing before round 1's first turn."""
        self._require_started()
        if self.turn == 0 and self.round == 1:
            raise IllegalMoveError("This is the first turn of round 1: there is none before it.")
        back_a_round = self.turn == 0
        turn = len(self.order) - 1 if back_a_round else self.turn - 1
        tracker = dataclasses.replace(
            self, round=self.round - (1 if back_a_round else 0), turn=turn, acted=()
        )
        team = tracker.order[turn]
        message = f"Back to round {tracker.round}. Turn: " if back_a_round else "Back to: "
        return tracker, TurnEvent(
            kind="turn_back",
            round=tracker.round,
            team=team,
            new_round=back_a_round,
            message=f"{message}{self._name_of(team)}.",
        )

    def remove_participant(self, character: str) -> tuple[TurnTracker, TurnEvent]:
        """Remove a character. If that empties the team whose turn it is, the turn passes on."""
        leaving = self.participant(character)
        participants = tuple(p for p in self.participants if p.id != leaving.id)
        acted = tuple(c for c in self.acted if c != leaving.id)
        reacted = tuple(c for c in self.reacted if c != leaving.id)
        team_gone = not any(p.team == leaving.team for p in participants)
        order = tuple(t for t in self.order if not (team_gone and t == leaving.team))
        if not self.started or not team_gone:
            tracker = dataclasses.replace(
                self, participants=participants, order=order, acted=acted, reacted=reacted
            )
            return tracker, self._event("left", tracker, leaving.id, f"{leaving.name} leaves.")
        if not order:
            # Nobody is left to take turns: back to a tracker that has not started.
            tracker = TurnTracker()
            return tracker, self._event("left", tracker, leaving.id, f"{leaving.name} leaves.")
        gone_at = self.order.index(leaving.team)
        if gone_at != self.turn:
            turn = self.turn - 1 if gone_at < self.turn else self.turn
            tracker = dataclasses.replace(
                self, participants=participants, order=order, turn=turn, reacted=reacted
            )
            return tracker, self._event("left", tracker, leaving.id, f"{leaving.name} leaves.")
        # The team whose turn it was is gone: the next team's turn begins at the same index.
        interim = dataclasses.replace(
            self,
            participants=participants,
            order=order,
            turn=min(self.turn, len(order) - 1),
            acted=(),
            reacted=reacted,
        )
        wraps = self.turn >= len(order)
        tracker, event = interim._begin_turn(0 if wraps else self.turn, new_round=wraps)
        return tracker, dataclasses.replace(
            event,
            kind="left",
            character=leaving.id,
            message=f"{leaving.name} leaves. {event.message}",
        )

    def set_order(self, teams: Iterable[str]) -> tuple[TurnTracker, TurnEvent]:
        """Set the teams' turn order (every team once, names case-insensitive).

        Seed: "The order in which characters take turns should follow naturally from the
        events". Mid-round, the team whose turn it is keeps it; the new order counts from there.
        """
        wanted = [lookup(t, self.order, "team") for t in _names(teams, "The turn order")]
        if sorted(wanted) != sorted(self.order):
            raise RulesError(
                f"The turn order must list every team exactly once: {', '.join(self.order)}."
            )
        order = tuple(wanted)
        turn = order.index(self.current_team) if self.started else 0
        tracker = dataclasses.replace(self, order=order, turn=turn)
        return tracker, self._event("order_set", tracker, None, f"Order: {', '.join(order)}.")

    def start(self) -> tuple[TurnTracker, TurnEvent]:
        """Round 1 begins with the first team's turn; everyone has their reaction."""
        if self.started:
            raise IllegalMoveError("The turns have already started.")
        if not self.order:
            raise IllegalMoveError("Add at least one participant before starting the turns.")
        tracker, event = self._begin_turn(0, new_round=True)
        return tracker, dataclasses.replace(event, kind="started")

    def take_action(self, character: str) -> tuple[TurnTracker, TurnEvent]:
        """Spend ``character``'s one action this turn (seed: "you may perform one action")."""
        p = self.participant(character)
        self._require_started()
        if p.team != self.current_team:
            raise IllegalMoveError(
                f"It is not {p.name}'s turn: the turn belongs to {self.current_team}. "
                f"{p.name} may react instead."
            )
        if p.id in self.acted:
            raise IllegalMoveError(f"{p.name} has already taken an action this turn.")
        tracker = dataclasses.replace(self, acted=self.acted + (p.id,))
        return tracker, self._event("action", tracker, p.id, f"{p.name} acts.")

    def use_reaction(self, character: str) -> tuple[TurnTracker, TurnEvent]:
        """Spend ``character``'s reaction; it comes back when their own team's turn begins."""
        p = self.participant(character)
        self._require_started()
        if p.id in self.reacted:
            raise IllegalMoveError(
                f"{p.name} has already reacted this round; the reaction comes back when "
                f"the turn of {p.team} begins again."
            )
        tracker = dataclasses.replace(self, reacted=self.reacted + (p.id,))
        return tracker, self._event("reaction", tracker, p.id, f"{p.name} reacts.")

    def end_turn(self) -> tuple[TurnTracker, TurnEvent]:
        """End the current team's turn; the next team's begins (a new round after the last)."""
        self._require_started()
        nxt = self.turn + 1
        wraps = nxt >= len(self.order)
        interim = dataclasses.replace(self, acted=())
        return interim._begin_turn(0 if wraps else nxt, new_round=wraps)

    # -- helpers

    def _require_initiative(self) -> None:
        if not self.by_initiative:
            raise IllegalMoveError("The turns go by teams here: end them to use initiative.")

    def _sorted(self) -> TurnTracker:
        """The initiative order re-sorted; mid-round the current entry keeps the turn."""
        order = initiative_order(self.participants)
        turn = order.index(self.current_team) if self.started else 0
        return dataclasses.replace(self, order=order, turn=turn)

    def _name_of(self, team: str) -> str:
        """A team's name as the log says it: in an initiative order, its entry's name."""
        if self.by_initiative:
            return next((p.name for p in self.participants if p.id == team), team)
        return team

    def _require_started(self) -> None:
        if not self.started:
            raise IllegalMoveError("The turns have not started yet.")

    def _begin_turn(self, turn: int, *, new_round: bool) -> tuple[TurnTracker, TurnEvent]:
        team = self.order[turn]
        members = set(self.members(team))
        refreshed = tuple(c for c in self.reacted if c in members)
        tracker = dataclasses.replace(
            self,
            round=self.round + (1 if new_round else 0),
            turn=turn,
            acted=(),
            reacted=tuple(c for c in self.reacted if c not in members),
        )
        message = f"Turn: {self._name_of(team)}."
        if new_round:
            message = f"Round {tracker.round}. {message}"
        event = TurnEvent(
            kind="turn_ended",
            round=tracker.round,
            team=team,
            new_round=new_round,
            refreshed=refreshed,
            message=message,
        )
        return tracker, event

    @staticmethod
    def _event(kind: str, tracker: TurnTracker, character: str | None, message: str) -> TurnEvent:
        return TurnEvent(
            kind=kind,
            round=tracker.round,
            team=tracker.current_team,
            character=character,
            message=message,
        )

    # -- storage

    @classmethod
    def from_dict(cls, data: Any) -> TurnTracker:
        """Rebuild a stored tracker (``to_dict()`` output); bad data raises ``RulesError``."""
        if not isinstance(data, Mapping):
            raise RulesError("A stored turn tracker must be a mapping.")
        raw = data.get("participants", [])
        if not isinstance(raw, list | tuple) or not all(isinstance(p, Mapping) for p in raw):
            raise RulesError("A stored turn tracker's participants must be a list of mappings.")
        try:
            participants = tuple(
                Participant(
                    id=p["id"],
                    name=p.get("name", p["id"]),
                    team=p["team"],
                    initiative=p.get("initiative"),
                )
                for p in raw
            )
        except KeyError as missing:
            raise RulesError(f"A stored participant is missing its {missing}.") from None
        return cls(
            participants=participants,
            order=_names(data.get("order", []), "The turn order"),
            round=check_int(data.get("round", 0), "The round", low=0),
            turn=check_int(data.get("turn", 0), "The turn", low=0),
            acted=_names(data.get("acted", []), "Characters who acted"),
            reacted=_names(data.get("reacted", []), "Characters who reacted"),
            by_initiative=data.get("by_initiative", False) is True,
        )
