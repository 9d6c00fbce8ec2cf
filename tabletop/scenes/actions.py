"""Actions on live scenes: the only code that changes scene state and emits scene events.

Each action authorises its actor, runs in one transaction and records its events with
``record_event`` (broadcast after commit). ``COMMANDS`` maps websocket commands to parsers that
call these actions, so the consumer stays thin.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from rules.core import Rng, resolve_rng
from tabletop.campaigns.models import Campaign, Membership
from tabletop.characters.models import Character
from tabletop.scenes import selectors
from tabletop.scenes.audiences import gm_group, players_group
from tabletop.scenes.events import record_event, reveal_event
from tabletop.scenes.frames import presence_frame
from tabletop.scenes.models import Audience, Presence, Scene, SceneEvent
from tabletop.scenes.systems import ROLL_KINDS

#: Roll modes offered on every roll panel, and the audience each one means.
ROLL_MODES: dict[str, str] = {
    "public": Audience.EVERYONE,
    "gm": Audience.PRIVATE,  # private to GM: the GM and the roller see it
    "blind": Audience.BLIND,  # blind to GM: only the GM sees it; the roller sees that it happened
    "self": Audience.SELF,
    "secret": Audience.GM_ONLY,  # the GM's own secret roll (e.g. perception for a player)
}


# --- authorisation helpers --------------------------------------------------------------------


def _membership(campaign: Campaign, user: Any) -> Membership:
    if not user.is_authenticated:
        raise PermissionDenied("Log in first.")
    membership = Membership.objects.filter(campaign=campaign, user=user).first()
    if membership is None:
        raise PermissionDenied("You are not a member of this campaign.")
    return membership


def _require_gm(campaign: Campaign, user: Any) -> None:
    if not user.is_authenticated or campaign.gm_id != user.pk:
        raise PermissionDenied("Only the GM can do that.")


def _open_scene(scene_id: int) -> Scene:
    scene = Scene.objects.select_related("campaign").filter(pk=scene_id).first()
    if scene is None:
        raise ValidationError("That scene does not exist.")
    return scene


def _require_open(scene: Scene) -> None:
    if not scene.is_open:
        raise ValidationError("This scene is not open for play.")


def _character_for_roll(*, scene: Scene, actor: Any, character_id: Any) -> Character | None:
    if character_id in (None, ""):
        return None
    try:
        character_id = int(character_id)
    except (TypeError, ValueError):
        raise ValidationError("Pick a character from the list.") from None
    character = Character.objects.filter(pk=character_id, campaign=scene.campaign).first()
    if character is None:
        raise ValidationError("That character is not in this campaign.")
    if character.owner_id != actor.pk and scene.campaign.gm_id != actor.pk:
        raise PermissionDenied("You can only roll for your own characters.")
    return character


# --- scenes --------------------------------------------------------------------------------------


def scene_create(*, campaign: Campaign, actor: Any, name: str) -> Scene:
    _require_gm(campaign, actor)
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "Give the scene a name."})
    if len(name) > 100:
        raise ValidationError({"name": "Keep the name under 100 characters."})
    with transaction.atomic():
        return Scene.objects.create(campaign=campaign, name=name)


def scene_open(*, scene: Scene, actor: Any) -> Scene:
    _require_gm(scene.campaign, actor)
    with transaction.atomic():
        scene = Scene.objects.select_for_update().get(pk=scene.pk)
        if scene.status == Scene.Status.OPEN:
            return scene
        scene.status = Scene.Status.OPEN
        scene.opened_at = timezone.now()
        scene.closed_at = None
        scene.save(update_fields=["status", "opened_at", "closed_at"])
        record_event(scene=scene, kind="scene_opened", actor=actor, public={"name": scene.name})
    return scene


def scene_close(*, scene: Scene, actor: Any) -> Scene:
    _require_gm(scene.campaign, actor)
    with transaction.atomic():
        scene = Scene.objects.select_for_update().get(pk=scene.pk)
        if scene.status != Scene.Status.OPEN:
            raise ValidationError("Only an open scene can be closed.")
        scene.status = Scene.Status.CLOSED
        scene.closed_at = timezone.now()
        scene.save(update_fields=["status", "closed_at"])
        record_event(scene=scene, kind="scene_closed", actor=actor, public={"name": scene.name})
    return scene


# --- rolls ---------------------------------------------------------------------------------------


def roll_make(
    *,
    scene: Scene,
    actor: Any,
    roll_kind: str,
    mode: str = "public",
    character: Character | None = None,
    data: dict[str, Any] | None = None,
    rng: Rng | None = None,
) -> SceneEvent:
    """Roll one of the panel's roll kinds in a mode (public, gm, blind, self, secret)."""
    campaign = scene.campaign
    _membership(campaign, actor)
    _require_open(scene)
    kind = ROLL_KINDS.get(roll_kind)
    if kind is None or ("*" not in kind.systems and campaign.system not in kind.systems):
        raise ValidationError(f"Unknown roll {str(roll_kind)[:40]!r} for this system.")
    if mode not in ROLL_MODES:
        raise ValidationError(f"Unknown roll mode {str(mode)[:20]!r}.")
    if mode == "secret" and campaign.gm_id != actor.pk:
        raise PermissionDenied("Only the GM makes secret rolls.")
    outcome = kind.roll(
        data=data or {},
        character=character,
        ruleset=campaign.effective_ruleset(),
        rng=resolve_rng(rng),
    )
    audience = ROLL_MODES[mode]
    roll = {
        "roll_kind": kind.name,
        "label": kind.label,
        "title": outcome.title,
        "summary": outcome.summary,
        "outcome": outcome.outcome,
        "result": outcome.detail,
        "character": character.name if character else "",
    }
    who = {"roller": actor.get_username(), "mode": mode}
    with transaction.atomic():
        if audience == Audience.EVERYONE:
            public, secret = {**who, **roll}, {}
        else:
            # Players outside the audience learn only who rolled and how: no dice, no count.
            public, secret = who, roll
        return record_event(
            scene=scene,
            kind="roll",
            actor=actor,
            character=character,
            audience=audience,
            public=public,
            secret=secret,
        )


def roll_reveal(*, scene: Scene, actor: Any, seq: int) -> SceneEvent:
    """The GM shows a hidden roll to everyone; its nonce is published so browsers verify it."""
    _require_gm(scene.campaign, actor)
    with transaction.atomic():
        event = (
            SceneEvent.objects.select_for_update().filter(scene=scene, seq=seq, kind="roll").first()
        )
        if event is None:
            raise ValidationError("There is no such roll in this scene.")
        if event.audience == Audience.EVERYONE or event.revealed_at is not None:
            raise ValidationError("That roll is already visible to everyone.")
        if event.audience == Audience.SELF:
            raise PermissionDenied("A self roll belongs to its roller.")
        reveal_event(event)
        return record_event(
            scene=scene,
            kind="reveal",
            actor=actor,
            parent=event,
            public={"roller": event.public.get("roller", ""), "seq": event.seq},
        )


# --- presence ------------------------------------------------------------------------------------


def _broadcast_presence(scene_id: int) -> None:
    scene = Scene.objects.select_related("campaign").get(pk=scene_id)
    html = presence_frame(
        scene_id=scene_id,
        users=selectors.online_users(scene_id=scene_id),
        gm_id=scene.campaign.gm_id,
    )
    send = async_to_sync(get_channel_layer().group_send)
    for group in (gm_group(scene_id), players_group(scene_id)):
        send(group, {"type": "scene.presence", "html": html})


def presence_join(*, scene_id: int, user: Any, channel_name: str) -> None:
    with transaction.atomic():
        Presence.objects.update_or_create(
            channel_name=channel_name,
            defaults={"scene_id": scene_id, "user": user, "last_seen": timezone.now()},
        )
        transaction.on_commit(partial(_broadcast_presence, scene_id))


def presence_leave(*, scene_id: int, channel_name: str) -> None:
    with transaction.atomic():
        Presence.objects.filter(channel_name=channel_name).delete()
        transaction.on_commit(partial(_broadcast_presence, scene_id))


def presence_touch(*, channel_name: str) -> None:
    Presence.objects.filter(channel_name=channel_name).update(last_seen=timezone.now())


# --- websocket commands ----------------------------------------------------------------------


def _cmd_roll(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    character = _character_for_roll(scene=scene, actor=user, character_id=data.get("character"))
    roll_make(
        scene=scene,
        actor=user,
        roll_kind=str(data.get("roll_kind", "")),
        mode=str(data.get("mode", "public")),
        character=character,
        data=data,
    )


def _cmd_reveal(scene: Scene, user: Any, data: dict[str, Any]) -> None:
    seq = data.get("seq")
    try:
        seq = int(seq)
    except (TypeError, ValueError):
        raise ValidationError("Which roll? (seq must be a whole number)") from None
    roll_reveal(scene=scene, actor=user, seq=seq)


COMMANDS: dict[str, Callable[[Scene, Any, dict[str, Any]], None]] = {
    "roll": _cmd_roll,
    "reveal": _cmd_reveal,
}


def run_command(*, command: str, scene_id: int, user: Any, data: dict[str, Any]) -> None:
    """Dispatch one websocket command to its action (the consumer's only entry point)."""
    scene = _open_scene(scene_id)
    COMMANDS[command](scene, user, data)
