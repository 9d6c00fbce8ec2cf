"""The scene's live tools: the Party tool (everyone's currencies) and the GM's dashboard.

Both are fragments of the scene page pushed out of band after any event that changes what they
show (a spend, an award, a hidden roll, a reveal), rendered once per viewer class like every
frame. The Party tool holds nothing secret (bennies and plot points lie on the table); the
dashboard, with hidden results and pending approvals, only ever goes to the GM.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from django.db.models import Q

from tabletop import systems
from tabletop.characters.models import Character, SavedRoll
from tabletop.characters.saved_rolls import character_rolls, own_rolls
from tabletop.characters.sheets import currencies, currency_value, spec_for
from tabletop.scenes import kinds
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.fragments import render_fragment
from tabletop.scenes.models import Audience, Scene, SceneEvent
from tabletop.scenes.modes import modes_for
from tabletop.scenes.procedures import render_procedure_views
from tabletop.scenes.rollkinds import kinds_for
from tabletop.scenes.speakers import SPEAKER_LIMIT


def _rows(scene: Scene, characters: list[Character]) -> list[dict[str, Any]]:
    spec = spec_for(scene.campaign)
    system = systems.find(scene.campaign.system)
    declared = [c for c in currencies(spec) if not c.total_of]  # a total shows with its count
    # What a roll against a foe is against (its difficulty...), as the system's kinds say it.
    against = next((k.against for k in kinds_for(scene.campaign.system) if k.against), None)
    rows = []
    for character in characters:
        values = []
        for currency in declared:
            value: Any = currency_value(spec, character, currency)
            pc = character.role == Character.Role.PC
            if currency.players_only and not pc:
                value = "—"  # the players' own (bennies, plot points: seeds 002, 004)
            values.append(
                {
                    "field": currency.field,
                    "label": currency.label,
                    # The +/− buttons' names count one: "one more benny", not "bennies".
                    "one": currency.one,
                    "value": value,
                    # The GM's dashboard steps it (+/−): never a player's currency on an NPC.
                    "steps": currency.gm_steps and (pc or not currency.players_only),
                }
            )
        # Its pools, each "current / max" (two_dice's resources), as its system reads them.
        pools = system.pools(character, spec) if system is not None and system.pools else []
        faced = (
            against(character)
            if against is not None and character.role == Character.Role.FOE
            else {}
        )
        rows.append({"character": character, "values": values, "pools": pools, "against": faced})
    return rows


def tools_context(scene: Scene, viewer: Viewer) -> dict[str, Any]:
    """What the Party tool (and, for the GM, the dashboard) shows now."""
    return _context(scene, is_gm=viewer.is_gm, wanted=TOOLS)


def campaign_characters(scene: Scene) -> list[Character]:
    """The campaign's characters as the tools list them (players' first, by name)."""
    return list(
        Character.objects.of_campaign(scene.campaign)
        .select_related("owner")
        .order_by("role", "name")
    )


def _hidden(scene: Scene) -> list[SceneEvent]:
    """The GM's hidden results: rolls not yet revealed (a self roll is its roller's alone)."""
    return list(
        SceneEvent.objects.filter(scene=scene, kind="roll", revealed_at__isnull=True)
        .filter(~Q(audience=Audience.EVERYONE))
        .exclude(audience=Audience.SELF)
        # What the list shows: not the ledger entry nor the commitment (a tenth of a busy
        # server's CPU went to reading and decoding them, bench/README.md).
        .only("seq", "audience", "public", "secret")
        .order_by("-seq")[:20]
    )


def _context(
    scene: Scene,
    *,
    is_gm: bool,
    wanted: frozenset[str],
    characters: Callable[[], list[Character]] | None = None,
) -> dict[str, Any]:
    """What the ``wanted`` tools read, and only that: a hidden roll's list needs no
    characters. ``characters``: the campaign's characters, when a broadcast read them already."""
    ctx: dict[str, Any] = {"scene": scene, "viewer_is_gm": is_gm}
    gm_sees = wanted if is_gm else frozenset()
    if "party" in wanted or gm_sees & {"dashboard", "table"}:
        everyone = characters() if characters is not None else campaign_characters(scene)
        ctx["party"] = _rows(scene, [c for c in everyone if c.role == Character.Role.PC])
        if gm_sees & {"dashboard", "table"}:
            ctx["table"] = _rows(scene, everyone)
            ctx["foes"] = [c for c in everyone if c.role == Character.Role.FOE]
    if "dashboard" in gm_sees:
        # What the system has waiting for the GM (approvals, foes waiting to strike back).
        system = systems.find(scene.campaign.system)
        dashboard = system.dashboard if system is not None else None
        if dashboard is not None:
            ctx["dashboard_template"], waiting = dashboard(scene)
            ctx.update(waiting)
    if gm_sees & {"dashboard", "hidden"}:
        ctx["hidden"] = _hidden(scene)
    return ctx


#: The tools beside the log (the rest are procedure views, named after their procedure):
#: the party's and the GM's dashboard, and two parts of the dashboard on their own: its table
#: of every character (a roll that only changes a sheet) and its list of hidden results (a
#: hidden roll), so such an event does not re-render the whole dashboard.
TOOLS = frozenset({"party", "dashboard", "table", "hidden", "party-row", "table-row"})
_TEMPLATES = {
    "party": "scenes/_party.html",
    "dashboard": "scenes/_dashboard.html",
    "table": "scenes/_gm_table.html",
    "hidden": "scenes/_hidden_results.html",
}


def render_tools(
    scene: Scene,
    *,
    is_gm: bool,
    oob: bool,
    only: Iterable[str] | None = None,
    characters: Callable[[], list[Character]] | None = None,
) -> str:
    """The Party tool and, for the GM, the dashboard (``only``: just these tools; the
    dashboard holds its table and its hidden results). They depend on whether the viewer is
    the GM and on nothing else about them, so one render serves every player
    (``render.Renders``)."""
    # A player's frame for a hidden roll needs no context at all.
    return "".join(
        render_tool(scene, name, is_gm=is_gm, oob=oob, characters=characters)
        for name in tools_for(only, is_gm=is_gm)
        if name not in TOOL_ROWS  # a character's cells are an event's (render.Renders)
    )


def tools_for(only: Iterable[str] | None, *, is_gm: bool) -> list[str]:
    """The tools to render, in page order, of those named (``None``: all of them): the
    dashboard and its parts are the GM's, and the dashboard holds its parts."""
    wanted = set(TOOLS if only is None else TOOLS & set(only))
    if not is_gm:
        wanted &= {"party", "party-row"}
    if "dashboard" in wanted:
        wanted -= {"table", "hidden"}
    if "party" in wanted:
        wanted.discard("party-row")  # the whole tool holds the row
    if wanted & {"dashboard", "table"}:
        wanted.discard("table-row")
    order = ("party", "party-row", "dashboard", "table", "table-row", "hidden")
    return [name for name in order if name in wanted]


def render_tool(
    scene: Scene,
    name: str,
    *,
    is_gm: bool,
    oob: bool,
    characters: Callable[[], list[Character]] | None = None,
) -> str:
    """One tool, from what it reads alone. The Party tool is the same for everyone,
    the GM included (it is rendered from a player's context), so one render serves the table."""
    ctx = _context(
        scene, is_gm=is_gm and name != "party", wanted=frozenset({name}), characters=characters
    )
    ctx["oob"] = oob
    return render_fragment(_TEMPLATES[name], ctx)


#: One character's cells alone (only its sheet changed): in the Party tool (a player
#: character's) and in the GM's table. Tool name -> the cells' id prefix.
TOOL_ROWS = {"party-row": "party", "table-row": "gm-table"}


def render_character_row(scene: Scene, name: str, character: Character | None) -> str:
    """The numbers of one character (as committed: read it afresh), each swapped into its cell
    on the page: a check that pays from one sheet re-renders those cells, not every table.
    Nothing for no character, and no party cells for a character the Party tool does not
    list."""
    if character is None or (name == "party-row" and character.role != Character.Role.PC):
        return ""
    ctx = {"row": _rows(scene, [character])[0], "prefix": TOOL_ROWS[name]}
    return render_fragment("scenes/_sheet_cells.html", ctx)


def render_hidden_entry(event: SceneEvent) -> str:
    """A hidden roll joining the GM's hidden results: its entry alone, put at the top of the
    list on the page (the list was 20 entries and 8 KB re-rendered for every hidden roll). The
    GM's, like the whole list."""
    return render_fragment("scenes/_hidden_joins.html", {"roll": event})


def render_tools_and_views(
    scene: Scene, viewer: Viewer, *, oob: bool, only: Iterable[str] | None = None
) -> str:
    """The Party tool, the dashboard for the GM and (``oob``) the procedure views, as
    out-of-band swaps when ``oob``; ``only``: just the tools and views of these names (what an
    event made stale: ``party``, ``dashboard``, a procedure view's name)."""
    wanted = None if only is None else set(only)
    html = render_tools(scene, is_gm=viewer.is_gm, oob=oob, only=wanted)
    if oob:
        # Procedure views are on the page already; a page load renders them itself.
        procedures = None if wanted is None else wanted - TOOLS
        if procedures is None or procedures:
            scene.refresh_from_db(fields=["state"])
            html += "".join(render_procedure_views(scene, viewer, oob=True, only=procedures))
    return html


def stale_tools_and_views(event: SceneEvent) -> frozenset[str]:
    """The tools and procedure views an event makes stale: its kind says (tabletop.scenes.kinds)."""
    return kinds.get(event.kind).stale_tools_and_views(event)


# --- what follows the scene's status -------------------------------------------------------------
# The header's badge and the GM's open/close button, the composer, the Roll and Sheet tools and
# their tabs, a system's box in In play: a scene that opens or closes pushes them to every page
# on it (``scene_opened``/``scene_closed`` make this stale), each rendered for its viewer, since
# the Roll and Sheet tools hold a player's own characters. A page that was away gets them with
# its catch-up (``feed.replay.replay_frames``), as the scene is then.

#: The stale name of that part of the page (not a tool of ``TOOLS``: rendered per viewer).
SCENE_STATUS = "scene-status"


def play_context(scene: Scene, viewer: Viewer) -> dict[str, Any]:
    """What the status's parts read for one viewer: the page's roll forms (the viewer's
    characters, the modes they may pick), the Sheet tool and a system's extras."""
    campaign = scene.campaign
    characters = Character.objects.of_campaign(campaign)
    if not viewer.is_gm:
        characters = characters.filter(owner_id=viewer.user_id)
    system = campaign.game
    extras = {}
    if system.scene_extras is not None:
        extras = system.scene_extras(scene, viewer, campaign.effective_ruleset())
    return {
        **extras,
        "scene": scene,
        "campaign": campaign,
        "viewer": viewer,
        "characters": characters,
        "foes": Character.objects.of_campaign(campaign).filter(role=Character.Role.FOE),
        "roll_kinds": kinds_for(campaign.system),
        "roll_modes": [(m.name, m.label) for m in modes_for(is_gm=viewer.is_gm)],
        "speaker_limit": SPEAKER_LIMIT,  # the longest NPC name the composer's picker takes
        # Read only while open: nothing of them shows otherwise.
        "sheets": sheet_tool(scene, viewer) if scene.is_open else [],
        "own_rolls": own_roll_buttons(scene, viewer) if scene.is_open else [],
    }


def render_scene_status(scene: Scene, viewer: Viewer) -> str:
    """The parts of the page that follow the scene's status, as out-of-band morphs, for this
    viewer alone (the GM's button for the GM; a player's own characters and sheets)."""
    # The roll forms read the party's rows too (a heal picks its patient from them).
    ctx = _context(scene, is_gm=viewer.is_gm, wanted=frozenset({"party", "table"}))
    ctx.update(play_context(scene, viewer))
    ctx["oob"] = True
    return render_fragment("scenes/_scene_status.html", ctx)


# --- the Sheet tool ------------------------------------------------------------------------------
# A character's sheet at the table: its currencies as the Party tool shows them and the rollable
# numbers its system declares (``System.rollables``), each a button that fills its roll form
# (static/js/scene.js). Nothing of it is pushed: its currencies mirror the Party tool's and the
# GM table's cells (their ids), which the events above keep live, so it costs no frame or render.


def sheet_characters(scene: Scene, viewer: Viewer) -> list[Character]:
    """The characters whose sheets the viewer's Sheet tool holds: a player's own, every one of
    the campaign for the GM. Nobody else's: a sheet's numbers are its owner's and the GM's (the
    Party tool shows the players' currencies to everyone, nothing more)."""
    found = Character.objects.of_campaign(scene.campaign).select_related("owner")
    if not viewer.is_gm:
        found = found.filter(owner_id=viewer.user_id)
    return Character.in_table_order(found)


def sheet_tool(scene: Scene, viewer: Viewer) -> list[dict[str, Any]]:
    """Each of the viewer's sheets (``sheet_characters``) for ``scenes/_sheet_tool.html``: the
    character, its currencies (the Party tool's row, and the prefix of the cells they mirror:
    the Party tool's for a player's character, the GM table's for the GM's) and its rollables
    by section, those of roll kinds the scene's roll forms offer, with their fields as JSON."""
    characters = sheet_characters(scene, viewer)
    if not characters:
        return []
    system = systems.find(scene.campaign.system)
    declared = system.rollables if system is not None else None
    ruleset = scene.campaign.effective_ruleset()
    offered = {kind.name for kind in kinds_for(scene.campaign.system)}
    saved = character_rolls(characters)
    sheets = []
    for row in _rows(scene, characters):
        character = row["character"]
        sections: dict[str, list[dict[str, Any]]] = {}
        for rollable in declared(character, ruleset) if declared is not None else ():
            if rollable.roll_kind in offered:
                sections.setdefault(rollable.section, []).append(
                    {"rollable": rollable, "fields": json.dumps(dict(rollable.fields))}
                )
        sheets.append(
            {
                "character": character,
                "money": row,
                "cells": TOOL_ROWS[
                    "party-row" if character.role == Character.Role.PC else "table-row"
                ],
                "sections": [{"title": t, "rollables": r} for t, r in sections.items()],
                "saved": saved_roll_buttons(saved[character.pk]),
            }
        )
    return sheets


def saved_roll_buttons(rolls: Iterable[SavedRoll]) -> list[dict[str, Any]]:
    """Saved rolls as the Sheet tool's buttons: each fills the dice box with its name, which
    the dice box looks up for whoever rolls (``saved_rolls.dice_for``), so the card names it."""
    return [
        {"name": s.name, "expression": s.expression, "fields": json.dumps({"expression": s.name})}
        for s in rolls
    ]


def own_roll_buttons(scene: Scene, viewer: Viewer) -> list[dict[str, Any]]:
    """The viewer's own saved rolls in the scene's campaign (tied to no character)."""
    return saved_roll_buttons(own_rolls(campaign=scene.campaign, user=viewer.user_id))
