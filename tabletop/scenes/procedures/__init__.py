"""Live procedures' views on the scene page: op challenges, expeditions, turn trackers, ...

A procedure keeps its state in ``Scene.state[<name>]`` (changed only by its actions, under the
scene row's lock, through ``procedures.state``) and has a ``ProcedureView``: a game system
brings its views with its ``System``; the turn tracker, offered in every system, registers
here. The scene page shows the views of the campaign's system; after an event whose kind makes
a view stale the broadcast re-renders it out of band, once per viewer class (GM, the actor,
every other player), so a view's template decides what a player may see with
``viewer_is_gm`` exactly as a card does, and must never put a GM-only value into the player
rendering.

The view's template gets ``scene``, ``state`` (its ``Scene.state`` entry, may be None),
``viewer_is_gm``, ``viewer_id``, ``oob`` and whatever ``context(scene, viewer)`` adds. Its root
element has ``id="procedure-<name>"`` and, when ``oob``, ``hx-swap-oob="morph"`` (morphed in
place by scene.js).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from tabletop import systems


@dataclass(frozen=True)
class ProcedureView:
    name: str  # the Scene.state key, and the view's id "procedure-<name>"
    label: str
    template: str
    context: Callable[..., dict[str, Any]] | None = None  # context(scene, viewer) -> dict


#: Views every system's scenes show (the turn tracker).
GENERIC_VIEWS: dict[str, ProcedureView] = {}


def register(view: ProcedureView) -> ProcedureView:
    GENERIC_VIEWS[view.name] = view
    return view


def procedure_views_for(slug: str) -> list[ProcedureView]:
    """The campaign's system's procedure views, then the generic ones."""
    system = systems.find(slug)
    return [*(system.procedure_views if system is not None else ()), *GENERIC_VIEWS.values()]


def render_procedure_views(
    scene: Any, viewer: Any, *, oob: bool, only: Iterable[str] | None = None
) -> list[SafeString]:
    """Each of the scene's procedure views rendered for one viewer class (``only``: just
    the views of these names)."""
    out = []
    wanted = None if only is None else set(only)
    for view in procedure_views_for(scene.campaign.system):
        if wanted is not None and view.name not in wanted:
            continue
        ctx: dict[str, Any] = {
            "scene": scene,
            "state": (scene.state or {}).get(view.name),
            "viewer_is_gm": viewer.is_gm,
            "viewer_id": viewer.user_id,
            "oob": oob,
            "procedure_view": view,
        }
        if view.context is not None:
            ctx.update(view.context(scene, viewer))
        out.append(mark_safe(render_to_string(view.template, ctx)))  # noqa: S308 - our template
    return out
