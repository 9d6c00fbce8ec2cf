"""Websocket commands: one table, with each command's fields parsed declaratively.

A ``Command`` names its action and how each keyword argument comes out of the frame::

    Command("challenge_reveal", challenge_reveal, position=Raw("position"))

``call_action`` looks the command up, parses its fields (a bad value is a
``ValidationError`` the player reads) and calls the action with ``scene=`` and ``actor=``, on
a scene already read; the socket's entry point, which reads the scene and makes a command sent
twice run once, is ``actions.run_command``. Generic commands are registered here; a game
system brings its own with its ``System``. A command whose action opens a window (a cancel
window, a reaction window) says so with ``window``; the consumer then settles the scene's due
work when it closes (``tabletop.scenes.due``), the same work the heartbeat does as a safety
net.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError

from tabletop import systems
from tabletop.characters.models import Character
from tabletop.scenes.access import require_gm
from tabletop.scenes.context import CommandContext
from tabletop.scenes.due import FollowUp, follow_up
from tabletop.scenes.kit import writes_event_first
from tabletop.scenes.models import Scene
from tabletop.scenes.rows import character_for_roll
from tabletop.scenes.values import row_number, whole

Data = Mapping[str, Any]


class Field:
    """How one keyword argument of an action comes out of a command's frame."""

    def parse(self, scene: Scene, user: Any, data: Data) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True)
class Raw(Field):
    """The value as sent (the action checks it)."""

    key: str

    def parse(self, scene: Scene, user: Any, data: Data) -> Any:
        return data.get(self.key)


@dataclass(frozen=True)
class Blank(Field):
    """The value as sent, None when missing or blank."""

    key: str

    def parse(self, scene: Scene, user: Any, data: Data) -> Any:
        value = data.get(self.key)
        return None if value in (None, "") else value


@dataclass(frozen=True)
class Text(Field):
    """Text (a missing value is ``default``; anything else is made text)."""

    key: str
    default: str = ""

    def parse(self, scene: Scene, user: Any, data: Data) -> str:
        value = data.get(self.key)
        return self.default if value is None else str(value)


@dataclass(frozen=True)
class Whole(Field):
    """A whole number; ``optional``: None when missing or blank."""

    key: str
    what: str
    optional: bool = False

    def parse(self, scene: Scene, user: Any, data: Data) -> int | None:
        value = data.get(self.key)
        if self.optional and value in (None, ""):
            return None
        return whole(value, self.what)


@dataclass(frozen=True)
class Choice(Field):
    """One of a few words, mapped to the value the action takes."""

    key: str
    options: Mapping[str, Any]
    what: str

    def parse(self, scene: Scene, user: Any, data: Data) -> Any:
        value = data.get(self.key)
        if not isinstance(value, str) or value not in self.options:
            raise ValidationError(self.what)
        return self.options[value]


@dataclass(frozen=True)
class Picks(Field):
    """The non-blank texts of several fields, in order (``type_1``, ``type_2``)."""

    keys: tuple[str, ...]

    def parse(self, scene: Scene, user: Any, data: Data) -> list[str]:
        return [v for v in (data.get(k) for k in self.keys) if isinstance(v, str) and v]


@dataclass(frozen=True)
class Rolling(Field):
    """The character a member acts with: their own (the GM: any), or None when none is named;
    ``required`` says what to ask for when one must be."""

    key: str = "character"
    required: str = ""

    def parse(self, scene: Scene, user: Any, data: Data) -> Character | None:
        character = character_for_roll(scene=scene, actor=user, character_id=data.get(self.key))
        if character is None and self.required:
            raise ValidationError(self.required)
        return character


@dataclass(frozen=True)
class Member(Field):
    """Any character of the campaign (a target, a patient, the other side): the action
    decides what the actor may do with it."""

    key: str
    what: str = "Pick a character."
    optional: bool = False

    def parse(self, scene: Scene, user: Any, data: Data) -> Character | None:
        raw = data.get(self.key)
        if raw in (None, ""):
            if self.optional:
                return None
            raise ValidationError(self.what)
        character = (
            Character.objects.of_campaign(scene.campaign)
            .filter(pk=row_number(raw, self.what))
            .first()
        )
        if character is None:
            raise ValidationError("That character is not in this campaign.")
        return character


@dataclass(frozen=True)
class Members(Field):
    """A list of the campaign's characters (a group of checkboxes: one id, or a list)."""

    key: str
    what: str = "Pick a character."

    def parse(self, scene: Scene, user: Any, data: Data) -> list[Character]:
        raw = data.get(self.key)
        if raw in (None, ""):
            return []
        items = raw if isinstance(raw, list) else [raw]
        if len(items) > 100:
            raise ValidationError("Too many characters.")
        one = Member(self.key, self.what)
        return [one.parse(scene, user, {self.key: item}) for item in items]


@dataclass(frozen=True)
class Flag(Field):
    """A checkbox: sent (as "on" or its value) when ticked, absent when not."""

    key: str

    def parse(self, scene: Scene, user: Any, data: Data) -> bool:
        return data.get(self.key) not in (None, "", False, "false", "0", "off")


@dataclass(frozen=True)
class Parsed(Field):
    """A field read by a function of its own: ``read(scene, user, data)``."""

    read: Callable[[Scene, Any, Data], Any]

    def parse(self, scene: Scene, user: Any, data: Data) -> Any:
        return self.read(scene, user, data)


@dataclass(frozen=True)
class Frame(Field):
    """The whole frame (for actions that read many fields of their own, a roll form's)."""

    def parse(self, scene: Scene, user: Any, data: Data) -> dict[str, Any]:
        return dict(data)


@dataclass(frozen=True, init=False)
class Command:
    name: str
    action: Callable[..., Any]
    fields: Mapping[str, Field] = field(default_factory=dict)
    #: When the action's result opens a window: window(result) -> when it closes (or None).
    window: Callable[[Any], datetime | None] | None = None
    #: The GM's alone: refused before any field is read (a player learns nothing from it).
    gm: bool = False

    def __init__(
        self,
        command: str,
        call: Callable[..., Any],
        /,
        *,
        window: Callable[[Any], datetime | None] | None = None,
        gm: bool = False,
        **fields: Field,
    ) -> None:
        # Positional-only: a field may be called "name" or "action" (a phase's action).
        object.__setattr__(self, "name", command)
        object.__setattr__(self, "action", call)
        object.__setattr__(self, "fields", fields)
        object.__setattr__(self, "window", window)
        object.__setattr__(self, "gm", gm)

    @property
    def checks_scene(self) -> bool:
        """Whether the action's first write, its event, checks the scene it went by (a
        ``scene_action(atomic=False)``): the command may run on the scene as last seen."""
        return writes_event_first(self.action)

    def run(
        self, scene: Scene, user: Any, data: Data, context: CommandContext | None = None
    ) -> Any:
        """Parse the fields and run the action in the command's ``context`` (None: a blank
        one); its result (an event, usually)."""
        if self.gm:
            require_gm(scene.campaign, user)
        kwargs = {name: spec.parse(scene, user, data) for name, spec in self.fields.items()}
        context = context if context is not None else CommandContext()
        return self.action(scene=scene, actor=user, context=context, **kwargs)

    def follow_up(self, scene: Scene, result: Any) -> FollowUp | None:
        """The due work to run when the window the action opened closes, if it opened one."""
        closes_at = self.window(result) if self.window is not None else None
        return follow_up(scene.pk, closes_at) if closes_at is not None else None


COMMANDS: dict[str, Command] = {}


def register(*commands: Command) -> None:
    """Generic commands (every system's scenes take them)."""
    for command in commands:
        systems.claim(COMMANDS, command.name, command, what="command", owner="generic code")


def _added(system: systems.System) -> None:
    for command in system.commands:
        owner = f"system {system.slug!r}"
        systems.claim(COMMANDS, command.name, command, what="command", owner=owner)


def _removed(system: systems.System) -> None:
    for command in system.commands:
        systems.release(COMMANDS, command.name, command)


systems.on_register(_added, _removed)


def call_action(
    *, command: str, scene: Scene, user: Any, data: Data, context: CommandContext | None = None
) -> FollowUp | None:
    """Call one command's action on ``scene`` (read by ``actions.run_command``) with the
    frame's fields parsed, in the command's ``context`` (passed down to its events); a returned
    ``FollowUp`` is due work to run when a window the command opened closes."""
    found = COMMANDS[command]
    return found.follow_up(scene, found.run(scene, user, data, context or CommandContext()))
