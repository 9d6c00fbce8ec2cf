"""The scene's live side panels: the party's currencies (everyone) and the GM's dashboard.

Both are fragments of the scene page pushed out of band after any event that changes what they
show (a spend, an award, a hidden roll, a reveal), rendered once per viewer class like every
frame. The party panel holds nothing secret (bennies and plot points lie on the table); the
dashboard, with hidden results and pending approvals, only ever goes to the GM.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Q

from tabletop import systems
from tabletop.characters.models import Character
from tabletop.characters.sheets import CURRENCY_LABELS, spec_for
from tabletop.scenes import kinds
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.frames import render_fragment
from tabletop.scenes.models import Audience, Scene, SceneEvent
from tabletop.scenes.procedures import render_procedure_panels

#: Currencies the GM steps up and down from the dashboard (the rest live on the sheet).
DASHBOARD_STEPS = ("bennies", "plot_points", "hits", "lasting_hits")
PLAYERS_CURRENCIES = ("bennies", "plot_points", "development_points")


def _rows(scene: Scene, characters: list[Character]) -> list[dict[str, Any]]:
    spec = spec_for(scene.campaign)
    rows = []
    for character in characters:
        values = []
        for field in spec.currencies:
            if field == "plot_points_total":
                continue  # shown as "available / total"
            value: Any = getattr(character, field)
            if field == "plot_points":
                value = f"{character.plot_points} / {character.plot_points_total}"
            players_own = field in PLAYERS_CURRENCIES
            if players_own and character.kind != Character.Kind.PC:
                value = "—"  # bennies and plot points are the players' (seeds 002, 004)
            values.append(
                {
                    "field": field,
                    "label": CURRENCY_LABELS[field],
                    "value": value,
                    "steps": field in DASHBOARD_STEPS
                    and (character.kind == Character.Kind.PC or not players_own),
                }
            )
        resources = [
            {"name": name, **(character.resources or {}).get(name, {"current": 0, "max": 0})}
            for name in spec.resources
        ]
        rows.append({"character": character, "values": values, "resources": resources})
    return rows


def panel_context(scene: Scene, viewer: Viewer) -> dict[str, Any]:
    """What the party panel (and, for the GM, the dashboard) shows now."""
    characters = list(
        Character.objects.filter(campaign=scene.campaign)
        .select_related("owner")
        .order_by("kind", "name")
    )
    pcs = [c for c in characters if c.kind == Character.Kind.PC]
    ctx: dict[str, Any] = {"scene": scene, "party": _rows(scene, pcs), "viewer_is_gm": viewer.is_gm}
    if viewer.is_gm:
        ctx["table"] = _rows(scene, characters)
        ctx["foes"] = [c for c in characters if c.kind == Character.Kind.FOE]
        events = SceneEvent.objects.filter(scene=scene)
        # What the system has waiting for the GM (approvals, foes waiting to strike back).
        system = systems.find(scene.campaign.system)
        dashboard = system.extra.get("dashboard") if system is not None else None
        if dashboard is not None:
            ctx["dashboard_template"], waiting = dashboard(scene)
            ctx.update(waiting)
        ctx["hidden"] = list(
            events.filter(kind="roll", revealed_at__isnull=True)
            .filter(~Q(audience=Audience.EVERYONE))
            .exclude(audience=Audience.SELF)
            .order_by("-seq")[:20]
        )
    return ctx


#: The panels beside the log (the rest are procedure panels, named after their procedure).
SIDE_PANELS = frozenset({"party", "dashboard"})


def render_side_panels(
    scene: Scene, *, is_gm: bool, oob: bool, only: Iterable[str] | None = None
) -> str:
    """The party panel and, for the GM, the dashboard (``only``: just these of the two). They
    depend on whether the viewer is the GM and on nothing else about them, so one render
    serves every player (``events.Renders``)."""
    wanted = SIDE_PANELS if only is None else SIDE_PANELS & set(only)
    # The dashboard is the GM's: a player's frame for a hidden roll needs no context at all.
    if not wanted & ({"party", "dashboard"} if is_gm else {"party"}):
        return ""
    ctx = panel_context(scene, Viewer(None, is_gm))
    ctx["oob"] = oob
    html = ""
    if "party" in wanted:
        html += render_fragment("scenes/_party.html", ctx)
    if is_gm and "dashboard" in wanted:
        html += render_fragment("scenes/_dashboard.html", ctx)
    return html


def render_panels(
    scene: Scene, viewer: Viewer, *, oob: bool, only: Iterable[str] | None = None
) -> str:
    """The party panel, the dashboard for the GM and (``oob``) the procedure panels, as
    out-of-band swaps when ``oob``; ``only``: just the panels of these names (what an event
    made stale: ``party``, ``dashboard``, a procedure panel's name)."""
    wanted = None if only is None else set(only)
    html = render_side_panels(scene, is_gm=viewer.is_gm, oob=oob, only=wanted)
    if oob:
        # Procedure panels are on the page already; a page load renders them itself.
        procedures = None if wanted is None else wanted - SIDE_PANELS
        if procedures is None or procedures:
            scene.refresh_from_db(fields=["state"])
            html += "".join(render_procedure_panels(scene, viewer, oob=True, only=procedures))
    return html


def stale_panels(event: SceneEvent) -> frozenset[str]:
    """The panels an event makes stale: its kind says (tabletop.scenes.kinds)."""
    return kinds.get(event.kind).stale_panels(event)
