"""Operation challenges live in a scene (annulus, seed 000): the GM sets one up, anyone at the
table adjusts dice, the GM reveals hidden dice, toolkit abilities help; the end publishes the
layout for every browser to verify.

Each action is a ``@scene_action`` (tabletop/scenes/kit.py): the kit authorises the actor,
refuses a closed scene and a campaign of another system, locks the scene row in one transaction
and turns the rules' refusals into the player's error; the action keeps the challenge's logic.

State: the ``challenge`` procedure state (``procedure_state``/``store_state``, changed only
here, under the scene row's lock) holds the rules' ``Challenge`` (``to_dict()``: every die, the
hidden ones too), the seq of its setup event and the last move. It never reaches a player: the
procedure view renders views built from it (tabletop/systems/annulus/procedure_views.py).

Secrecy: the setup event ``challenge_set`` is private to the GM with the layout (mask, hidden
positions, every die) as its secret, so ``record_event`` makes ONE commitment to the whole layout
(it leaks neither count nor position) and keeps the nonce on the event row; players see that
card sealed. When the challenge ends (solved, failed or called off) that event is revealed and
``challenge_end`` carries layout and nonce: every browser recomputes the commitment.

Commands name a die by its place among the VISIBLE dice (all a player knows) and say what the
player saw: ``seen`` (its number) and ``in_view`` (how many dice the chain showed). Two clicks on
one die are serialised by the scene row's lock; the second finds the die changed (or jammed) and
is refused with a clear error instead of moving it twice, and a reveal that shifted the dice
refuses commands aimed at the old places.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError

from rules import annulus
from rules.annulus import Challenge
from rules.core import Rng, RulesError, lookup
from tabletop.systems import api
from tabletop.systems.api import (
    Audience,
    Blank,
    Character,
    Command,
    CommandContext,
    Picks,
    Raw,
    Rolling,
    Scene,
    SceneEvent,
    Text,
    Whole,
    canonical_json,
    procedure_state,
    record_event,
    reveal_event,
    scene_action,
    store_state,
    whole,
)

#: The procedure state's name (and the view's).
STATE_KEY = "challenge"
#: What the kit's system guard calls these moves ("... belong to the Annulus system.").
CHALLENGES = "Operation challenges"
#: How a challenge ended, as its end card says it (the card's ``outcome`` class).
OUTCOMES = {"solved": "success", "failed": "failure", "called_off": "called_off"}


# --- helpers ----------------------------------------------------------------------------------


def _running(scene: Scene) -> tuple[dict[str, Any], Challenge]:
    state = procedure_state(scene, STATE_KEY)
    if not state or state.get("ended"):
        raise ValidationError("No operation challenge is under way.")
    return state, Challenge.from_dict(state["challenge"])


def _acting(scene: Scene, actor: Any, character: Character | None) -> Character | None:
    """The character whose training counts: the actor's own (the GM may use any)."""
    if character is None:
        return None
    if character.campaign_id != scene.campaign_id:
        raise ValidationError("That character is not in this campaign.")
    if character.owner_id != actor.pk and scene.campaign.gm_id != actor.pk:
        raise PermissionDenied("You can only act with your own characters.")
    return character


def _perk_dice(challenge: Challenge, character: Character | None, rules: dict[str, Any]) -> int:
    """Training-perk dice for the challenge's types (the sheet's ``training_perks``)."""
    if character is None:
        return 0
    perks = character.training_perks if isinstance(character.training_perks, dict) else {}
    try:
        return annulus.training_dice(types=challenge.types, perks=perks, ruleset=rules)
    except RulesError as exc:
        raise ValidationError(f"{character.name}'s training perks: {exc}") from None


def _who(actor: Any, character: Character | None) -> dict[str, Any]:
    return {"who": actor.get_username(), "character": character.name if character else ""}


def _aimed_die(challenge: Challenge, die: Any, *, seen: Any, in_view: Any) -> int:
    """The chain position of the ``die``-th visible die, if it is still the die the player saw."""
    visible = challenge.visible_indices()
    if in_view is not None and whole(in_view, "How many dice did you see?") != len(visible):
        raise ValidationError(
            "The chain changed while you chose (a hidden die joined it): look again and pick "
            "the die anew."
        )
    index = whole(die, "Which die?")
    if not 0 <= index < len(visible):
        raise ValidationError(f"There is no die {index + 1} in the chain.")
    position = visible[index]
    if seen is not None:
        now = challenge.values[position]
        if whole(seen, "Which number did the die show?") != now:
            raise ValidationError(
                f"Die {index + 1} changed while you chose: it shows {now} now, not {seen}. "
                "Someone got there first; look again."
            )
    return position


# --- actions ----------------------------------------------------------------------------------


@scene_action(gm=True, system="annulus", what=CHALLENGES)
def challenge_setup(
    *,
    scene: Scene,
    actor: Any,
    difficulty: str,
    types: Any,
    length: int | None = None,
    rng: Rng | None = None,
    context: CommandContext,
) -> SceneEvent:
    """The GM sets up an operation challenge: the secret mask and every die are rolled now.

    Seed: "the GM rolls six of 12-sided dice and places them in a line"; "they first secretly roll
    six six-sided dice"; a 1 hides its position. RULES-NOTES: the hidden dice are rolled now too
    (GM only) and published as a commitment; the length is the GM's choice, 1 to 12.
    """
    rules = scene.campaign.effective_ruleset()
    current = procedure_state(scene, STATE_KEY) or {}
    if current and not current.get("ended"):
        raise ValidationError(
            "An operation challenge is already under way: finish it or call it off first."
        )
    challenge = annulus.setup_challenge(
        difficulty=difficulty, types=types, length=length, ruleset=rules, rng=api.game_dice(rng)
    )
    number = current.get("number", 0) + 1
    event = record_event(
        scene=scene,
        kind="challenge_set",
        actor=actor,
        # Players see that it happened and its commitment: no count, no position, no die.
        audience=Audience.PRIVATE,
        public={
            "number": number,
            "difficulty": challenge.difficulty,
            "needed": challenge.needed,
            "types": list(challenge.types),
            "dice": list(challenge.visible_values()),
        },
        secret=challenge.layout(),
        context=context,
    )
    state = {
        "number": number,
        "challenge": challenge.to_dict(),
        "setup_seq": event.seq,
        "commitment": event.commitment,
        "last": None,
        "ended": None,
    }
    if challenge.finished:  # solved as rolled (a single die, a lucky row): over at once
        _end(scene, state, challenge, challenge.status.value, actor=actor, context=context)
    store_state(scene, STATE_KEY, state)
    return event


@scene_action(system="annulus", what=CHALLENGES)
def challenge_adjust(
    *,
    scene: Scene,
    actor: Any,
    die: Any,
    direction: Any,
    seen: Any = None,
    in_view: Any = None,
    character: Character | None = None,
    rng: Rng | None = None,
    context: CommandContext,
) -> SceneEvent:
    """Someone at the table moves one visible die 1 up or down; the op check comes first.

    Seed: "any adventurer can use a minor action to attempt to change one of the dice to a number
    1 higher or lower"; "they must first roll an op check"; "If the check fails, the die jams".
    ``die`` is the place among the visible dice; ``seen``/``in_view`` what the player saw.
    """
    character = _acting(scene, actor, character)
    step = whole(direction, "Move the die up (+1) or down (-1)")
    if step not in (1, -1):
        raise ValidationError("Move the die up (+1) or down (-1).")
    rules = scene.campaign.effective_ruleset()
    state, challenge = _running(scene)
    position = _aimed_die(challenge, die, seen=seen, in_view=in_view)
    new, result = annulus.adjust(
        challenge,
        position=position,
        direction=step,
        perk_dice=_perk_dice(challenge, character, rules),
        ruleset=rules,
        rng=api.game_dice(rng),
    )
    event = record_event(
        scene=scene,
        kind="challenge_adjust",
        actor=actor,
        character=character,
        public={
            **_who(actor, character),
            **result.player_view(),  # never the chain position: it would place hidden dice
            "die": result.visible_index + 1,
            "in_view": len(new.visible_indices()),
            "outcome": "failure" if result.jammed else "success",
        },
        context=context,
    )
    last = {"kind": "adjust", "seq": event.seq, "visible_index": result.visible_index}
    _advance(scene, state, new, actor=actor, last=last, context=context)
    return event


@scene_action(gm=True, system="annulus", what=CHALLENGES)
def challenge_reveal(
    *, scene: Scene, actor: Any, position: Any, context: CommandContext
) -> SceneEvent:
    """The GM reveals one hidden die of their choice (``position`` in the whole chain).

    Seed: "only one is revealed at a time and only when all visible dice are solved. The GM can
    reveal multiple hidden dice in any order they please"; it is "inserted into the die chain in
    the appropriate location".
    """
    position = whole(position, "Which hidden die?")
    state, challenge = _running(scene)
    new, result = annulus.reveal(challenge, position=position)
    event = record_event(
        scene=scene,
        kind="challenge_reveal",
        actor=actor,
        public={
            **result.player_view(),
            "die": result.visible_index + 1,
            "in_view": len(new.visible_indices()),
        },
        context=context,
    )
    last = {"kind": "reveal", "seq": event.seq, "visible_index": result.visible_index}
    _advance(scene, state, new, actor=actor, last=last, context=context)
    return event


@scene_action(system="annulus", what=CHALLENGES)
def challenge_toolkit(
    *,
    scene: Scene,
    actor: Any,
    ability: str,
    die: Any = None,
    value: Any = None,
    seen: Any = None,
    in_view: Any = None,
    character: Character | None = None,
    rng: Rng | None = None,
    context: CommandContext,
) -> SceneEvent:
    """Use a toolkit ability: its check first; a failure greys it out for this challenge.

    Seed: "Toolkit abilities require a check to use. If a toolkit ability is attempted but the
    check fails, then that ability becomes unavailable for use for the remainder of the
    challenge". The abilities are campaign data (RULES-NOTES defaults). ``die`` (a visible place)
    is the target of set_value, reroll and unjam; a reveal brings in the leftmost hidden die.
    """
    character = _acting(scene, actor, character)
    rules = scene.campaign.effective_ruleset()
    tools = {t.name: t for t in annulus.toolkit_abilities(ruleset=rules)}
    tool = tools[lookup(str(ability)[:60], tools, "toolkit ability")]
    number = whole(value, "The new number (1 to 12)") if tool.effect == "set_value" else None
    state, challenge = _running(scene)
    position = None
    if tool.effect != "reveal":
        if die in (None, ""):
            raise ValidationError(f"Pick the die for {tool.name}.")
        position = _aimed_die(challenge, die, seen=seen, in_view=in_view)
    new, result = annulus.use_toolkit(
        challenge,
        ability=tool.name,
        position=position,
        value=number,
        perk_dice=_perk_dice(challenge, character, rules),
        ruleset=rules,
        rng=api.game_dice(rng),
    )
    shown = result.visible_index
    event = record_event(
        scene=scene,
        kind="challenge_toolkit",
        actor=actor,
        character=character,
        public={
            **_who(actor, character),
            **result.player_view(),
            "die": None if shown is None else shown + 1,
            "in_view": len(new.visible_indices()),
            "outcome": "success" if result.check.passed else "failure",
        },
        context=context,
    )
    kind = "reveal" if tool.effect == "reveal" and result.applied else "toolkit"
    last = {"kind": kind, "seq": event.seq, "visible_index": shown}
    _advance(scene, state, new, actor=actor, last=last, context=context)
    return event


@scene_action(gm=True, system="annulus", what=CHALLENGES, needs_open=False)
def challenge_call_off(*, scene: Scene, actor: Any, context: CommandContext) -> SceneEvent:
    """The GM ends the challenge unfinished; the layout is published all the same.

    Allowed in a closed scene too: a challenge left sealed could never be verified.
    """
    state, challenge = _running(scene)
    event = _end(scene, state, challenge, "called_off", actor=actor, context=context)
    store_state(scene, STATE_KEY, state)
    return event


def _advance(
    scene: Scene,
    state: dict[str, Any],
    new: Challenge,
    *,
    actor: Any,
    last: dict[str, Any],
    context: CommandContext,
) -> None:
    """Store the challenge after a move; a solved or failed chain ends it at once."""
    state.update(challenge=new.to_dict(), last=last)
    if new.finished:
        _end(scene, state, new, new.status.value, actor=actor, context=context)
    store_state(scene, STATE_KEY, state)


def _end(
    scene: Scene,
    state: dict[str, Any],
    challenge: Challenge,
    how: str,
    *,
    actor: Any,
    context: CommandContext | None = None,
) -> SceneEvent:
    """Publish the layout and its nonce: the setup card is revealed, the end card verifies."""
    setup = SceneEvent.objects.select_for_update().get(scene=scene, seq=state["setup_seq"])
    reveal_event(setup)
    published = {
        "layout": setup.secret,
        "layout_text": canonical_json(setup.secret),
        "nonce": setup.nonce,
        "commitment": setup.commitment,
    }
    event = record_event(
        scene=scene,
        kind="challenge_end",
        actor=actor,
        parent=setup,
        public={
            "number": state["number"],
            "ended": how,
            "outcome": OUTCOMES[how],
            "values": list(challenge.values),
            "still_hidden": list(challenge.hidden),
            "jammed": list(challenge.jammed),
            **published,
        },
        context=context,
    )
    state.update(ended=how, end_seq=event.seq, published=published)
    return event


# --- commands ---

COMMANDS = (
    Command(
        "challenge_setup",
        challenge_setup,
        difficulty=Text("difficulty"),
        types=Picks(("type_1", "type_2")),
        length=Whole("length", "Chain length (1 to 12)", optional=True),
    ),
    Command(
        "challenge_adjust",
        challenge_adjust,
        die=Raw("die"),
        direction=Raw("direction"),
        seen=Blank("seen"),
        in_view=Blank("in_view"),
        character=Rolling(),
    ),
    Command("challenge_reveal", challenge_reveal, position=Raw("position")),
    Command(
        "challenge_toolkit",
        challenge_toolkit,
        ability=Text("ability"),
        die=Blank("die"),
        value=Blank("value"),
        seen=Blank("seen"),
        in_view=Blank("in_view"),
        character=Rolling(),
    ),
    Command("challenge_call_off", challenge_call_off),
)
