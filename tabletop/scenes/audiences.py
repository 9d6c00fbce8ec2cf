"""Who may see what: the ONE function that decides visibility, and the groups of a scene.

The live path (broadcast), the page-load path and the replay path all call ``visibility``, so a
secret can't reach a player by one path while the others keep it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tabletop.scenes.models import Audience, SceneEvent

FULL: Literal["full"] = "full"
STUB: Literal["stub"] = "stub"  # knows that it happened (and its commitment), nothing else
Visibility = Literal["full", "stub"] | None


@dataclass(frozen=True)
class Viewer:
    user_id: int | None
    is_gm: bool


def visibility(event: SceneEvent, viewer: Viewer) -> Visibility:
    """What ``viewer`` may see of ``event``: everything, only that it happened, or nothing."""
    is_actor = viewer.user_id is not None and viewer.user_id == event.actor_id
    if event.audience == Audience.WHISPER:
        # Never revealed, never stubbed: anyone else may not even learn that it was said.
        return FULL if is_actor or viewer.user_id in event.recipients else None
    if event.revealed_at is not None or event.audience == Audience.EVERYONE:
        return FULL
    match event.audience:
        case Audience.GM_ONLY:
            return FULL if viewer.is_gm else None
        case Audience.PRIVATE:
            return FULL if viewer.is_gm or is_actor else STUB
        case Audience.BLIND:
            return FULL if viewer.is_gm else STUB
        case Audience.SELF:
            return FULL if is_actor else None
    return None


def scene_group(scene_id: int) -> str:
    """Every socket of the scene: a frame that is the same for everyone goes out once."""
    return f"scene-{scene_id}"


def gm_group(scene_id: int) -> str:
    return f"scene-{scene_id}-gm"


def players_group(scene_id: int) -> str:
    return f"scene-{scene_id}-players"


def user_group(scene_id: int, user_id: int) -> str:
    return f"scene-{scene_id}-user-{user_id}"


def audience_of(event: SceneEvent) -> frozenset[int]:
    """The user ids a whisper is for, its actor included."""
    ids = {uid for uid in event.recipients if isinstance(uid, int)}
    if event.actor_id is not None:
        ids.add(event.actor_id)
    return frozenset(ids)


def groups_for(scene_id: int, viewer: Viewer) -> list[str]:
    """The channel-layer groups a viewer's socket joins."""
    role = gm_group(scene_id) if viewer.is_gm else players_group(scene_id)
    return [scene_group(scene_id), role, user_group(scene_id, viewer.user_id)]
