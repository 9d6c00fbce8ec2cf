"""conductor's procedures in a live scene: the wilderness expedition, and a heal's effect on the
patient's sheet.

The expedition is the ``expedition`` view's procedure state, ``rules.conductor.Expedition``
as a dict, read and written only through the action kit (``procedure_state``, ``store_state``).
Each of its moves is a ``@scene_action``: the kit authorises the actor, refuses a closed scene
and a campaign of another system, locks the scene row (one expedition move at a time) and turns
the rules' refusals ("already acted", "mounts are tired") into the player's error message.

The GM starts it, runs the party (leader, mounts, water vehicle, feeding, joining and leaving)
and ends each phase; each player picks the phase's action for their own characters (the GM may
pick for anyone), and any player of the party or the GM declares the party's travel. The lasting
hits the procedure deals or heals go onto the sheets (``Character.lasting_hits``). Every step is
a public event whose card tells the table what happened, and it refreshes the expedition view
for everyone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError

from rules import conductor
from rules.core import Rng
from tabletop.systems import api
from tabletop.systems.api import (
    Character,
    Command,
    CommandContext,
    Flag,
    Member,
    Members,
    Parsed,
    Raw,
    Scene,
    SceneEvent,
    Text,
    character_adjust,
    lock_roll,
    procedure_state,
    record_event,
    roll_data,
    scene_action,
    store_state,
)
from tabletop.systems.api import pay as _pay
from tabletop.systems.conductor.models import ConductorSheet
from tabletop.systems.conductor.rolls import sheet_skill

#: The key of the expedition in ``Scene.state`` (and the view's name).
STATE_KEY = "expedition"

#: The party changes the GM makes between (or during) phases.
PARTY_CHANGES = (
    "leader",
    "mounted",
    "on_foot",
    "water_vehicle",
    "no_water_vehicle",
    "join",
    "leave",
    "rest",
    "fed",
)


# --- reading the expedition, recording its steps -------------------------------------------------


def _load(scene: Scene) -> conductor.Expedition:
    raw = procedure_state(scene, STATE_KEY)
    if raw is None:
        raise ValidationError("No expedition is under way in this scene.")
    return conductor.Expedition.from_dict(raw)


def _record(
    scene: Scene,
    kind: str,
    actor: Any,
    public: dict[str, Any],
    *,
    context: CommandContext | None = None,
    **extra: Any,
) -> SceneEvent:
    return record_event(
        scene=scene,
        kind=kind,
        actor=actor,
        public={**public},
        **extra,
        context=context,
    )


def _names(expedition: conductor.Expedition) -> dict[str, str]:
    return {m.id: m.name for m in expedition.members}


def _apply_lasting_hits(
    scene: Scene, actor: Any, moves: Iterable[conductor.ExpeditionEvent]
) -> None:
    """Put the procedure's lasting hits on the sheets and take the recovered ones off (never
    below none: the GM may have healed some by hand meanwhile)."""
    delta: Counter[str] = Counter()
    for move in moves:
        if isinstance(move, conductor.LastingHit):
            delta[move.character] += 1
        elif isinstance(move, conductor.LastingHitsRecovered):
            delta[move.character] -= move.hits
    for member_id, amount in delta.items():
        character = (
            ConductorSheet.objects.select_for_update()
            .filter(pk=int(member_id), campaign=scene.campaign)
            .first()
        )
        amount = max(amount, -character.lasting_hits) if character is not None else 0
        if amount:
            character_adjust(character=character, actor=actor, relative=True, lasting_hits=amount)


def _hit_lines(
    moves: Iterable[conductor.ExpeditionEvent], names: dict[str, str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(lasting hits taken, lasting hits recovered) as the card lists them."""
    taken, recovered = [], []
    for move in moves:
        if isinstance(move, conductor.LastingHit):
            taken.append({"character": names.get(move.character, "?"), "cause": move.cause})
        elif isinstance(move, conductor.LastingHitsRecovered):
            recovered.append(
                {
                    "character": names.get(move.character, "?"),
                    "cause": move.cause,
                    "hits": move.hits,
                }
            )
    return taken, recovered


# --- the expedition ----------------------------------------------------------------------------


@scene_action(gm=True, system="conductor", what="Expeditions")
def expedition_start(
    *,
    scene: Scene,
    actor: Any,
    members: list[Character],
    leader: Character | None = None,
    mounted: Iterable[Character] = (),
    water_vehicle: bool = False,
    context: CommandContext,
) -> SceneEvent:
    """The GM sets out with the party: day 1, Morning, the supply die at d12 (seed)."""
    if not members:
        raise ValidationError("Pick the characters who set out.")
    if any(c.campaign_id != scene.campaign_id for c in [*members, *mounted]):
        raise ValidationError("Those characters are not all in this campaign.")
    if procedure_state(scene, STATE_KEY) is not None:
        raise ValidationError("An expedition is already under way; end it first.")
    expedition = conductor.start_expedition(
        members=[(str(c.pk), c.name) for c in members],
        leader=str(leader.pk) if leader is not None else None,
        mounted=[str(c.pk) for c in mounted],
        water_vehicle=water_vehicle,
        ruleset=scene.campaign.effective_ruleset(),
    )
    store_state(scene, STATE_KEY, expedition.to_dict())
    return _record(
        scene,
        "expedition_start",
        actor,
        {
            "members": [m.name for m in expedition.members],
            "leader": _names(expedition)[expedition.leader],
            "mounted": [m.name for m in expedition.members if m.mounted],
            "water_vehicle": expedition.water_vehicle,
            "supply_die": expedition.supply_die,
        },
        context=context,
    )


@scene_action(system="conductor", what="Expeditions")
def expedition_action(
    *,
    scene: Scene,
    actor: Any,
    character: Character,
    phase_action: str,
    rng: Rng | None = None,
    context: CommandContext,
) -> SceneEvent:
    """One character's action for this phase (seed 002: "each character can take one action"),
    chosen by their player (or the GM). A Forage is rolled now: d12 + the sheet's Survival over
    7 (seed "Forage")."""
    if character.owner_id != actor.pk and scene.campaign.gm_id != actor.pk:
        raise PermissionDenied("You choose the actions of your own characters only.")
    phase_action = (phase_action or "").strip()
    if not phase_action:
        raise ValidationError("Say what the character does this phase.")
    expedition = _load(scene)
    survival = None
    if phase_action.casefold() == "forage":
        _, survival = sheet_skill(character, "Survival", ruleset=scene.campaign.effective_ruleset())
    expedition, moves = expedition.choose_action(
        str(character.pk), phase_action, survival=survival, rng=api.game_dice(rng)
    )
    store_state(scene, STATE_KEY, expedition.to_dict())
    taken = moves[0]
    forage = next((m for m in moves if isinstance(m, conductor.ForageRolled)), None)
    return _record(
        scene,
        "expedition_action",
        actor,
        {
            "who": actor.get_username(),
            "character": character.name,
            "action": taken.action,
            "day": expedition.day,
            "phase": expedition.phase,
            "forage": forage.roll.to_dict() if forage else None,
        },
        character=character,
        context=context,
    )


@scene_action(system="conductor", what="Expeditions")
def expedition_benny(
    *, scene: Scene, actor: Any, character: Character, context: CommandContext
) -> SceneEvent:
    """The player spends one of the character's bennies on this phase's Forage roll, +1
    (the Forage is a standard roll: "After seeing the roll's result ... BENNIES")."""
    if character.owner_id != actor.pk:
        raise PermissionDenied("Only the character's player spends their bennies.")
    expedition, moves = _load(scene).spend_bennies_on_forage(str(character.pk), bennies=1)
    _pay(character, "bennies", 1, "bennies")
    store_state(scene, STATE_KEY, expedition.to_dict())
    return _record(
        scene,
        "expedition_benny",
        actor,
        {
            "who": actor.get_username(),
            "character": character.name,
            "forage": moves[0].roll.to_dict(),
        },
        character=character,
        context=context,
    )


@scene_action(system="conductor", what="Expeditions")
def expedition_travel(
    *, scene: Scene, actor: Any, travel: str, civilization: bool = False, context: CommandContext
) -> SceneEvent:
    """The party's travel for this phase (Trek, Gallop, Ferry), declared by the GM or by a
    player whose character is in the party ("the whole party decides")."""
    expedition = _load(scene)
    if scene.campaign.gm_id != actor.pk:
        ids = [int(m.id) for m in expedition.members]
        if not ConductorSheet.objects.filter(pk__in=ids, owner=actor).exists():
            raise PermissionDenied("Only the party's players or the GM decide its travel.")
    expedition, moves = expedition.choose_travel(travel, civilization=civilization)
    store_state(scene, STATE_KEY, expedition.to_dict())
    return _record(
        scene,
        "expedition_travel",
        actor,
        {
            "who": actor.get_username(),
            "travel": moves[0].travel,
            "hexes": moves[0].hexes,
            "civilization": moves[0].civilization,
            "mounts_tired": any(isinstance(m, conductor.MountsTired) for m in moves),
            "hexes_travelled": expedition.hexes_travelled,
        },
        context=context,
    )


@scene_action(gm=True, system="conductor", what="Expeditions")
def expedition_end_phase(
    *, scene: Scene, actor: Any, rng: Rng | None = None, context: CommandContext
) -> SceneEvent:
    """The GM ends the phase: the wilderness roll, and at Night the day's supply roll (skipped
    after a successful Forage) and the lasting hits for hunger and for no rest, onto the sheets."""
    before = _load(scene)
    names = _names(before)
    expedition, moves = before.end_phase(rng=api.game_dice(rng))
    _apply_lasting_hits(scene, actor, moves)
    store_state(scene, STATE_KEY, expedition.to_dict())
    public: dict[str, Any] = {"supply": None, "supply_skipped": None}
    for move in moves:
        if isinstance(move, conductor.WildernessRolled):
            public["wilderness"] = {
                "rolled": move.roll.die.rolled,
                "encounter": move.roll.encounter,
            }
        elif isinstance(move, conductor.SupplyRolled):
            public["supply"] = {"leader": names.get(move.leader, "?"), **move.roll.to_dict()}
        elif isinstance(move, conductor.SupplySkipped):
            public["supply_skipped"] = [names.get(f, "?") for f in move.foragers]
        elif isinstance(move, conductor.PhaseEnded):
            public.update(
                day=move.day, phase=move.phase, next_day=move.next_day, next_phase=move.next_phase
            )
    public["hits"], public["recovered"] = _hit_lines(moves, names)
    public["mounts_recovered"] = any(isinstance(m, conductor.MountsRecovered) for m in moves)
    public["depleted"] = expedition.depleted
    public["supply_die"] = expedition.supply_die
    public["travel"] = before.travel.kind if before.travel else None
    return _record(scene, "expedition_phase", actor, public, context=context)


@scene_action(gm=True, system="conductor", what="Expeditions")
def expedition_party(
    *,
    scene: Scene,
    actor: Any,
    change: str,
    character: Character | None = None,
    context: CommandContext,
) -> SceneEvent:
    """The GM changes the party: its leader, who rides, the water vehicle, who joins or
    leaves, a rest outside the phases (an inn), or the party fed again (hunger hits heal)."""
    if change not in PARTY_CHANGES:
        raise ValidationError(f"Unknown party change {str(change)[:30]!r}.")
    needs_character = change not in ("water_vehicle", "no_water_vehicle", "fed")
    if needs_character and character is None:
        raise ValidationError("Pick the character.")
    expedition = _load(scene)
    who = str(character.pk) if character is not None else ""
    moves: tuple[conductor.ExpeditionEvent, ...]
    if change == "leader":
        expedition, moves = expedition.set_leader(who)
    elif change in ("mounted", "on_foot"):
        expedition, moves = expedition.set_mounted(who, change == "mounted")
    elif change in ("water_vehicle", "no_water_vehicle"):
        expedition, moves = expedition.set_water_vehicle(change == "water_vehicle")
    elif change == "join":
        expedition, moves = expedition.add_member(who, character.name)
    elif change == "leave":
        expedition, moves = expedition.remove_member(who)
    elif change == "rest":
        expedition, moves = expedition.rest(who)
    else:
        expedition, moves = expedition.feed()
    names = {**_names(expedition), who: character.name if character else ""}
    _apply_lasting_hits(scene, actor, moves)
    store_state(scene, STATE_KEY, expedition.to_dict())
    _, recovered = _hit_lines(moves, names)
    return _record(
        scene,
        "expedition_party",
        actor,
        {
            "change": change,
            "character": character.name if character else "",
            "recovered": recovered,
            "supply_die": expedition.supply_die,
        },
        character=character,
        context=context,
    )


@scene_action(gm=True, system="conductor", what="Expeditions")
def expedition_end(*, scene: Scene, actor: Any, context: CommandContext) -> SceneEvent:
    """The GM ends the expedition. Lasting hits stay on the sheets (the GM heals them)."""
    expedition = _load(scene)
    store_state(scene, STATE_KEY, None)
    return _record(
        scene,
        "expedition_end",
        actor,
        {
            "day": expedition.day,
            "phase": expedition.phase,
            "hexes_travelled": expedition.hexes_travelled,
        },
        context=context,
    )


# --- healing: the heal's effect on the patient's sheet ----------------------------------------


# locks=False: the roll's row lock serialises heals on it (as with bennies, bennies.py).
@scene_action(system="conductor", what="Heals", locks=False)
def heal_apply(*, scene: Scene, actor: Any, seq: Any, context: CommandContext) -> SceneEvent:
    """Put a heal on the patient's sheet, once: each hit heals one of their hits (never below
    none); a heal where every die missed costs them 1 hit (seed "Healing"). The healer's player
    or the GM applies it, on a heal the whole table sees."""
    roll = lock_roll(scene, seq, "Heals")
    data = roll_data(roll)
    if data.get("roll_kind") != "conductor_heal":
        raise ValidationError("That roll is not a heal.")
    healer = roll.character
    if actor.pk not in (healer.owner_id if healer else None, scene.campaign.gm_id):
        raise PermissionDenied("The healer's player or the GM applies a heal.")
    if roll.public.get("healing_applied"):
        raise ValidationError("That heal is already on the sheet.")
    result = data["result"]
    patient = (
        ConductorSheet.objects.select_for_update()
        .filter(pk=result.get("patient_id"), campaign=scene.campaign)
        .first()
    )
    if patient is None:
        raise ValidationError("The patient is no longer in this campaign.")
    before = patient.hits
    after = before - min(result["hits_healed"], before) + int(result["patient_takes_hit"])
    patient.hits = after
    patient.save(update_fields=["hits", "updated_at"])
    roll.public["healing_applied"] = {"before": before, "after": after, "by": actor.get_username()}
    roll.save(update_fields=["public"])
    return _record(
        scene,
        "heal_applied",
        actor,
        {
            "who": actor.get_username(),
            "patient": patient.name,
            "before": before,
            "after": after,
            "seq": roll.seq,
        },
        character=patient,
        parent=roll,
        context=context,
    )


# --- commands ---


def _phase_action(scene: Scene, user: Any, data: Any) -> str:
    chosen = data.get("action")
    if chosen == "other":
        chosen = data.get("other")
    if not isinstance(chosen, str):
        raise ValidationError("Say what the character does this phase.")
    return chosen


COMMANDS = (
    Command(
        "expedition_start",
        expedition_start,
        gm=True,
        members=Members("members", "Pick a character from the list."),
        leader=Member("leader", "Pick a character from the list.", optional=True),
        mounted=Members("mounted", "Pick a character from the list."),
        water_vehicle=Flag("water_vehicle"),
    ),
    Command(
        "expedition_action",
        expedition_action,
        character=Member("character", "Pick a character from the list."),
        phase_action=Parsed(_phase_action),
    ),
    Command(
        "expedition_benny",
        expedition_benny,
        character=Member("character", "Pick a character from the list."),
    ),
    Command(
        "expedition_travel",
        expedition_travel,
        travel=Parsed(lambda scene, user, data: str(data.get("travel", ""))[:20]),
        civilization=Flag("civilization"),
    ),
    Command("expedition_end_phase", expedition_end_phase),
    Command(
        "expedition_party",
        expedition_party,
        gm=True,
        change=Text("change"),
        character=Member("character", "Pick a character from the list.", optional=True),
    ),
    Command("expedition_end", expedition_end),
    Command("heal_apply", heal_apply, seq=Raw("seq")),
)
