"""A command's context: what the write path of one command needs to know, passed down with it.

``actions.run_command`` builds one per attempt at a command (``CommandContext.for_command``) and
hands it to the command's action (``commands.call_action``); the kit (``kit.scene_action``)
passes it on to the action, which passes it to ``record.record_event``. An action called
outside a command (a view, a window closing, a test) gets a blank one from the kit. What it
holds decides which path a roll takes (``fastpath``):

- ``command_id``: the page's id for the command, which its first event carries (the database
  holds it once per scene: the same command sent again is never recorded twice);
- ``read``: the scene the command went by (``fastpath.SceneRead``), which the kit asks whether
  the actor is a member (``member_known``) before it queries, and whose copy as this process
  last saw it the first event's write checks (``check_as_seen``);
- ``one_write``: the action runs without a transaction around it, its one write its event
  (``fastpath.one_write`` sets it);
- ``sends``: where its events' broadcasts go once committed (``deliver``): on a command thread
  the call's ``Held`` outlet (``command_threads``), sent from the loop when the call returns;
  elsewhere ``AT_ONCE``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tabletop.scenes.command_threads import AT_ONCE, Sends

if TYPE_CHECKING:
    from tabletop.campaigns.models import Campaign
    from tabletop.scenes.fastpath.scenes import SceneRead
    from tabletop.scenes.models import Scene


@dataclass
class CommandContext:
    """One command's write path (module docstring); blank for an action called outside one."""

    command_id: str = ""
    read: SceneRead | None = None
    one_write: bool = False
    sends: Sends = AT_ONCE
    #: A scene as seen whose first write is still to come (that write checks it).
    unchecked: bool = field(default=False)

    @classmethod
    def for_command(cls, read: SceneRead, command_id: str, sends: Sends) -> CommandContext:
        """The context of one attempt at a command on ``read`` (``actions.run_command``)."""
        return cls(command_id=command_id, read=read, unchecked=read.as_seen, sends=sends)

    def take_command_id(self) -> str:
        """The command's id for the event being recorded: its first event's, then blank."""
        command_id, self.command_id = self.command_id, ""
        return command_id

    def member_known(self, campaign: Campaign, user: Any) -> bool | None:
        """Whether ``user`` is a member of ``campaign`` as the command's read says (the same
        campaign object, the same user), or None when it says nothing about them."""
        read = self.read
        if read is None or read.user_id != user.pk or read.scene.campaign is not campaign:
            return None
        return read.member

    def check_as_seen(self, scene: Scene) -> SceneRead | None:
        """The scene as seen that this event's write must check: the command's copy, for its
        first event only (later ones are numbered as usual); None otherwise."""
        if not self.unchecked or self.read is None or self.read.scene is not scene:
            return None
        self.unchecked = False
        return self.read
