"""The wilderness expedition's view (conductor): the day and phase, the party and each member's
action this phase, the travel, the supply die with its exact odds, and the controls.

Nothing in it is secret: the GM's rendering adds the GM's controls (ending the phase, the
party), a player's rendering offers each member's action buttons to that member's player only
(``data-only-for``); the actions in expedition.py authorise every command.
"""

from __future__ import annotations

from typing import Any

from rules import conductor
from tabletop.systems.api import Character, ProcedureView, SceneEvent, percent, procedure_state
from tabletop.systems.conductor.expedition import STATE_KEY
from tabletop.systems.conductor.models import ConductorSheet
from tabletop.systems.conductor.rolls import sheet_skill


def expedition_context(scene: Any, viewer: Any) -> dict[str, Any]:
    """The expedition as the table sees it: the day and phase, a row per member, the travel and
    the supply die's odds; with no expedition, the characters who may set out."""
    campaign = scene.campaign
    pcs = list(
        ConductorSheet.objects.filter(campaign=campaign)
        .filter(role=Character.Role.PC)
        .order_by("name")
    )
    ctx: dict[str, Any] = {
        "actions": conductor.ACTIONS,
        "phases": conductor.PHASES,
        "encounter_odds": {
            name: percent(p) for name, p in conductor.wilderness_roll_distribution().items()
        },
    }
    raw = procedure_state(scene, STATE_KEY)
    if raw is None:
        ctx.update(expedition=None, candidates=pcs)
        return ctx
    expedition = conductor.Expedition.from_dict(raw)
    in_party = {m.id for m in expedition.members}
    rows = _member_rows(campaign, expedition, in_party)
    last = SceneEvent.objects.filter(scene=scene, kind="expedition_phase").order_by("-seq").first()
    ctx.update(
        expedition=expedition,
        rows=rows,
        leader=next(m.name for m in expedition.members if m.id == expedition.leader),
        night=expedition.phase == conductor.PHASES[-1],
        supply_odds=percent(expedition.supply_odds()),
        can_travel=expedition.travel is None and all(m.action is None for m in expedition.members),
        all_mounted=all(m.mounted for m in expedition.members),
        hexes={kind: expedition.rules.hexes(kind) for kind in conductor.TRAVEL_KINDS},
        outsiders=[c for c in pcs if str(c.pk) not in in_party],
        last=last.public if last is not None else None,
    )
    return ctx


def _member_rows(
    campaign: Any, expedition: conductor.Expedition, in_party: set[str]
) -> list[dict[str, Any]]:
    """A row per member: their player, whether they lead, their Survival and chance to forage,
    bennies and lasting hits (none of these for a sheet deleted since)."""
    ruleset = campaign.effective_ruleset()
    characters = {
        str(c.pk): c
        for c in ConductorSheet.objects.filter(campaign=campaign).filter(
            pk__in=[int(i) for i in in_party]
        )
    }
    rows = []
    for member in expedition.members:
        character = characters.get(member.id)
        survival = (
            sheet_skill(character, "Survival", ruleset=ruleset)[1] if character is not None else 0
        )
        rows.append(
            {
                "member": member,
                "owner_id": character.owner_id if character is not None else None,
                "is_leader": member.id == expedition.leader,
                "survival": survival,
                "forage_odds": percent(
                    conductor.forage_probability(
                        survival=survival, ruleset=expedition.rules.as_ruleset()
                    )
                ),
                "bennies": character.bennies if character is not None else 0,
                "lasting_hits": character.lasting_hits if character is not None else 0,
            }
        )
    return rows


VIEW = ProcedureView(
    name=STATE_KEY,
    label="Wilderness expedition",
    template="systems/conductor/procedures/expedition.html",
    context=expedition_context,
)
