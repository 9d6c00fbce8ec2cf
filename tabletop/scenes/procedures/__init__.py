"""Live procedures' panels on the scene page: op challenges, expeditions, turn trackers, ...

A procedure keeps its state in ``Scene.state[<name>]`` (changed only by its actions, under the
scene row's lock) and registers a ``ProcedurePanel`` here. The scene page shows the panels of
the campaign's system; after any event with ``public["refresh_panels"]`` the broadcast re-renders
them out of band, once per viewer class (GM, the actor, every other player), so a panel's
template decides what a player may see with ``viewer_is_gm`` exactly as a card does, and must
never put a GM-only value into the player rendering.

The panel's template gets ``scene``, ``state`` (its ``Scene.state`` entry, may be None),
``viewer_is_gm``, ``viewer_id``, ``oob`` and whatever ``context(scene, viewer)`` adds. Its root
element has ``id="panel-<name>"`` and, when ``oob``, ``hx-swap-oob="outerHTML"``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe


@dataclass(frozen=True)
class ProcedurePanel:
    name: str  # the Scene.state key, and the panel's id "panel-<name>"
    label: str
    systems: tuple[str, ...]  # campaign systems that offer it ("*" for all)
    template: str
    context: Callable[..., dict[str, Any]] | None = None  # context(scene, viewer) -> dict

    def offered_in(self, system: str) -> bool:
        return "*" in self.systems or system in self.systems


PANELS: dict[str, ProcedurePanel] = {}


def register(panel: ProcedurePanel) -> ProcedurePanel:
    PANELS[panel.name] = panel
    return panel


def panels_for(system: str) -> list[ProcedurePanel]:
    return [p for p in PANELS.values() if p.offered_in(system)]


def render_procedure_panels(scene: Any, viewer: Any, *, oob: bool) -> list[SafeString]:
    """Each of the scene's procedure panels rendered for one viewer class."""
    out = []
    for panel in panels_for(scene.campaign.system):
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


def load_all() -> None:
    """Import every module of this package so each registers its panel (once, at startup)."""
    import importlib
    import pkgutil

    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
