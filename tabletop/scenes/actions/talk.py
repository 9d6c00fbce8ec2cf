"""Chat at the table: lines said to everyone, ``/me`` emotes, and whispers, each with its inline
rolls (``[[1d20+5]]``, tabletop.scenes.inline_rolls), said as the member, one of their characters
or (the GM) an NPC, out of character, or as the GM's narration (tabletop.scenes.speakers).

A whisper goes through the same audience machinery as a hidden roll (``Audience.WHISPER``): it is
stored as a scene event whose ``recipients`` name who may read it, and ``visibility`` gives every
other member nothing at all: no card, no stub, on the live, page and replay paths alike.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from rules.core import Rng
from tabletop.campaigns.models import Membership
from tabletop.scenes import dice
from tabletop.scenes.commands import Command, Field, Parsed, Raw
from tabletop.scenes.context import CommandContext
from tabletop.scenes.inline_rolls import inline_rolls
from tabletop.scenes.kit import scene_action
from tabletop.scenes.mentions import mentioned
from tabletop.scenes.models import Audience, Scene, SceneEvent
from tabletop.scenes.record import record_event
from tabletop.scenes.speakers import NARRATION, OOC, speaker_for

#: The longest line the table takes (a paragraph, not a document).
CHAT_LIMIT = 1000
#: A whisper's most recipients (a campaign's members, with room to spare).
MAX_RECIPIENTS = 50
EMOTE = "/me "


def _line(text: str) -> tuple[str, bool]:
    """The text as said, and whether it is an emote (``/me waves``)."""
    text = text.strip()
    emote = text.lower().startswith(EMOTE) or text.lower() == EMOTE.strip()
    if emote:
        text = text[len(EMOTE) :].strip()
    if not text:
        raise ValidationError("Say something first.")
    if len(text) > CHAT_LIMIT:
        raise ValidationError(f"A message is at most {CHAT_LIMIT} characters ({len(text)} sent).")
    return text, emote


def _recipients(scene: Scene, actor: Any, to: list[int]) -> list[Any]:
    """The members a whisper is for (the GM included when named); the actor is left out."""
    wanted = {uid for uid in to if uid != actor.pk}
    if not wanted:
        raise ValidationError("Whisper to whom? Name someone other than yourself.")
    members = set(
        Membership.objects.filter(campaign_id=scene.campaign_id, user_id__in=wanted).values_list(
            "user_id", flat=True
        )
    )
    if wanted - members:
        raise ValidationError("You can only whisper to members of this campaign.")
    users = get_user_model().objects.filter(pk__in=wanted).order_by("username")
    return list(users)


@scene_action(locks=False, atomic=False)  # a line is its event alone
def chat(
    *,
    scene: Scene,
    actor: Any,
    text: str,
    to: list[int],
    speaking_as: Any = "",
    voice: Any = "",
    rng: Rng | None = None,
    context: CommandContext,
) -> SceneEvent:
    """Say a line to the table, or whisper it to the members in ``to`` (user ids), as
    ``speaking_as`` (a name: blank for the actor) or in ``voice`` (``speakers.LINE_VOICES``:
    out of character, narration). Its inline rolls (``[[1d20+5]]``) are rolled now and kept in
    its event, under its audience."""
    line, emote = _line(text)
    speaker = speaker_for(scene=scene, actor=actor, name=speaking_as, voice=voice)
    if emote and speaker.voice in (OOC, NARRATION):
        raise ValidationError(
            "An emote is what a character does: /me or /emas, without /ooc or /desc."
        )
    line, rolls = inline_rolls(line, rng=dice.game_dice(rng))
    said: dict[str, Any] = {**speaker.said(), "text": line, "emote": emote}
    if rolls:
        said["rolls"] = rolls
    if named := mentioned(scene.campaign, line, author_id=actor.pk):
        said["mentions"] = named
    if not to:
        return record_event(scene=scene, kind="chat", actor=actor, public=said, context=context)
    recipients = _recipients(scene, actor, to)
    said["to"] = [user.get_username() for user in recipients]
    return record_event(
        scene=scene,
        kind="chat",
        actor=actor,
        audience=Audience.WHISPER,
        secret=said,
        recipients=[user.pk for user in recipients],
        context=context,
    )


class Recipients(Field):
    """``to``: user ids, a list (empty or absent: everyone)."""

    def parse(self, scene: Scene, user: Any, data: Any) -> list[int]:
        raw = data.get("to")
        if raw in (None, ""):
            return []
        items = raw if isinstance(raw, list) else [raw]
        if len(items) > MAX_RECIPIENTS:
            raise ValidationError("Too many people to whisper to.")
        ids = []
        for item in items:
            if isinstance(item, bool) or not isinstance(item, int | str):
                raise ValidationError("Whisper to members of this campaign.")
            try:
                ids.append(int(item))
            except ValueError:
                raise ValidationError("Whisper to members of this campaign.") from None
        return ids


def _text(scene: Scene, user: Any, data: Any) -> str:
    value = data.get("text")
    if not isinstance(value, str):
        raise ValidationError("Say something first.")
    return value


COMMANDS = (
    Command(
        "chat",
        chat,
        text=Parsed(_text),
        to=Recipients(),
        speaking_as=Raw("as"),
        voice=Raw("voice"),
    ),
)

__all__ = ["CHAT_LIMIT", "COMMANDS", "chat"]
