"""Who a line or a roll is said as: the member in their own name, one of their characters, or
(the GM alone) an NPC, one of the GM's characters or any name typed; and how a line is said: out
of character (``/ooc``) or as the GM's narration (``/desc``).

The speaker is part of what the event holds (``payloads.Said``, ``payloads.RollData``), under
the event's audience like the rest of it: the ledger hashes it with a line said to the table,
a hidden roll commits to it with its secret, a whisper keeps it for its recipients. An event
said in the member's own name holds what it always held (``speaker``: their name), so cards,
exports and ledgers recorded before speakers read as they did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError

from tabletop.campaigns.models import Membership
from tabletop.characters.models import Character
from tabletop.scenes.models import Scene

#: The longest name a line is said as (a character's name: ``Character.name``).
SPEAKER_LIMIT = 80

#: How a line is said (``voice``), when not plainly by the member in their own name.
CHARACTER = "character"  # one of the member's characters (a player's)
NPC = "npc"  # the GM as one of their characters or a name they typed: no player's character
OOC = "ooc"  # out of character, in the member's own name
NARRATION = "narration"  # the GM's narration: no speaker shown
#: What a command may ask for (``voice`` of the chat command): "" is in character.
LINE_VOICES = frozenset({"", OOC, NARRATION})


@dataclass(frozen=True)
class Speaker:
    """Who says a line (``name``) and how (``voice``: "" for the member in their own name)."""

    name: str
    voice: str = ""
    #: the member who typed it, when the line is said under another name
    by: str = ""

    def said(self) -> dict[str, str]:
        """The event's fields for it: ``speaker``, and ``voice`` and ``by`` when set."""
        fields = {"speaker": self.name}
        if self.voice:
            fields["voice"] = self.voice
        if self.by:
            fields["by"] = self.by
        return fields

    def for_roll(self) -> dict[str, str]:
        """A roll's fields for it: ``speaker`` and ``voice`` when said under another name,
        else nothing (the roll names its roller, the member, already)."""
        return {"speaker": self.name, "voice": self.voice} if self.by else {}


def spoken_name(raw: Any) -> str:
    """A name as typed, its spaces made single; refused when it is not a name."""
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise ValidationError("Speak as a name: yourself, or one of your characters.")
    name = " ".join(raw.split())
    if len(name) > SPEAKER_LIMIT:
        raise ValidationError(
            f"A name to speak as is at most {SPEAKER_LIMIT} characters ({len(name)} sent)."
        )
    if not name.isprintable():
        raise ValidationError("A name to speak as holds letters, not control characters.")
    return name


def speaker_for(*, scene: Scene, actor: Any, name: Any = "", voice: Any = "") -> Speaker:
    """Who the actor says a line (or makes a roll) as: ``name`` (blank or their own: the
    actor), in ``voice`` (``LINE_VOICES``). A player speaks as themself or one of their own
    characters; the GM also as any other name, marked an NPC, unless it is a player's
    character's or a member's. Anything else is refused, saying why."""
    own = actor.get_username()
    voice = "" if voice is None else voice
    if not isinstance(voice, str) or voice not in LINE_VOICES:
        raise ValidationError("Say a line in character, out of character (/ooc), or narrate it.")
    if voice == NARRATION and scene.campaign.gm_id != actor.pk:
        raise PermissionDenied(
            "Narration (/desc) is the GM's. Say it as your character, or /me for what they do."
        )
    if voice:
        return Speaker(own, voice)  # out of character, or narrated: the member themself
    name = spoken_name(name)
    if not name or name.casefold() == own.casefold():
        return Speaker(own)
    return _as_someone(scene, actor, name)


def _as_someone(scene: Scene, actor: Any, name: str) -> Speaker:
    """The actor speaking as ``name``, not their own: one of their characters (the GM's are
    NPCs), or, for the GM, a name of no player's character and no member."""
    wanted = name.casefold()
    is_gm = scene.campaign.gm_id == actor.pk
    by = actor.get_username()
    named = [
        (owner_id, found)
        for owner_id, found in Character.objects.filter(campaign_id=scene.campaign_id)
        .order_by("pk")
        .values_list("owner_id", "name")
        if found.casefold() == wanted
    ]
    for owner_id, found in named:
        if owner_id == actor.pk:
            return Speaker(found, NPC if is_gm else CHARACTER, by)
    if named:
        whose = "the GM's" if named[0][0] == scene.campaign.gm_id else "another player's"
        if is_gm:
            raise ValidationError(
                f"{named[0][1]} is {whose} character: an NPC needs a name of its own."
            )
        raise PermissionDenied(
            f"{named[0][1]} is {whose} character: you speak as yourself or your own characters."
        )
    if not is_gm:
        raise ValidationError(
            f"You have no character called {name} in this campaign: you speak as yourself or "
            "your own characters."
        )
    username = f"user__{get_user_model().USERNAME_FIELD}"
    members = Membership.objects.filter(campaign_id=scene.campaign_id).values_list(
        username, flat=True
    )
    if any(member.casefold() == wanted for member in members):
        raise ValidationError(f"{name} is a member of this table: an NPC needs a name of its own.")
    return Speaker(name, NPC, by)


__all__ = [
    "CHARACTER",
    "LINE_VOICES",
    "NARRATION",
    "NPC",
    "OOC",
    "SPEAKER_LIMIT",
    "Speaker",
    "speaker_for",
    "spoken_name",
]
