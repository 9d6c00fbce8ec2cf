"""Live procedures' panels on the scene page: op challenges, expeditions, turn trackers, ...

A procedure keeps its state in ``Scene.state[<name>]`` (changed only by its actions, under the
scene row's lock, through ``procedures.state``) and has a ``ProcedurePanel``: a game system
brings its panels with its ``System``; the turn tracker, offered in every system, registers
here. The scene page shows the panels of the campaign's system; after an event whose kind makes
a panel stale the broadcast re-renders it out of band, once per viewer class (GM, the actor,
every other player), so a panel's template decides what a player may see with
``viewer_is_gm`` exactly as a card does, and must never put a GM-only value into the player
rendering.

The panel's template gets ``scene``, ``state`` (its ``Scene.state`` entry, may be None),
``viewer_is_gm``, ``viewer_id``, ``oob`` and whatever ``context(scene, viewer)`` adds. Its root
element has ``id="panel-<name>"`` and, when ``oob``, ``hx-swap-oob="morph"`` (morphed in place
by scene.js).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from tabletop import systems


@dataclass(frozen=True)
class ProcedurePanel:
    name: str  # the Scene.state key, and the panel's id "panel-<name>"
    label: str
    template: str
    context: Callable[..., dict[str, Any]] | None = None  # context(scene, viewer) -> dict


#: Panels every system's scenes show (the turn tracker).
GENERIC_PANELS: dict[str, ProcedurePanel] = {}


def register(panel: ProcedurePanel) -> ProcedurePanel:
    GENERIC_PANELS[panel.name] = panel
    return panel


def panels_for(slug: str) -> list[ProcedurePanel]:
    """The campaign's system's panels, then the generic ones."""
    system = systems.find(slug)
    return [*(system.panels if system is not None else ()), *GENERIC_PANELS.values()]


def render_procedure_panels(
    scene: Any, viewer: Any, *, oob: bool, only: Iterable[str] | None = None
) -> list[SafeString]:
    """Each of the scene's procedure panels rendered for one viewer class (``only``: just
    the panels of these names)."""
    out = []
    wanted = None if only is None else set(only)
    for panel in panels_for(scene.campaign.system):
        if wanted is not None and panel.name not in wanted:
            continue
        ctx: dict[str, Any] = {
            "scene": scene,
            "state": (scene.state or {}).get(panel.name),
            "viewer_is_gm": viewer.is_gm,
            "viewer_id": viewer.user_id,
            "oob": oob,
            "panel": panel,
        }
        if panel.context is not None:
            ctx.update(panel.context(scene, viewer))
        out.append(mark_safe(render_to_string(panel.template, ctx)))  # noqa: S308 - our template
    return out
