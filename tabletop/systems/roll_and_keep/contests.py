"""roll_and_keep opposed and extended actions (seed 001): directly and indirectly opposed
contests, extended actions with a target and a per-round minimum. Each is a ``@scene_action``
(the kit authorises, guards the system, locks the scene). State: the ``contests`` view's entry,
read with ``procedure_views.state_of`` and written with the kit's ``store_state``, only by these
actions."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from rules import roll_and_keep as rak
from rules.core import Rng, lookup
from tabletop.systems import api
from tabletop.systems.api import (
    Audience,
    Character,
    Command,
    CommandContext,
    Flag,
    Parsed,
    Raw,
    RollOutcome,
    Scene,
    SceneEvent,
    campaign_character,
    form_list,
    record_event,
    record_roll,
    require_player,
    scene_action,
    sheet_int,
    store_state,
    whole,
)
from tabletop.systems.roll_and_keep import procedure_views as contest_view
from tabletop.systems.roll_and_keep.models import RollAndKeepSheet

# --- roll_and_keep: directly and indirectly opposed, extended ------------------------------------

#: The system these moves belong to (the kit refuses them in a campaign of another).
SLUG = "roll_and_keep"
#: At most this many contests and extended actions stand on the view at once.
MAX_CONTESTS = 8


def _rak_sheet(
    character: Character, attribute: Any, specialities: Any, ruleset: Any
) -> tuple[str, int, list[str]]:
    """The attribute's name and value on the character's sheet and the ticked specialities of
    that character (they must belong to the attribute; other characters' ticks are skipped)."""
    raw = str(attribute or "").strip()
    if not raw:
        raise ValidationError(f"Pick {character.name}'s attribute.")
    attribute = lookup(raw[:60], ruleset["attributes"], "attribute")
    sheet = {str(k).casefold(): v for k, v in (character.attributes or {}).items()}
    value = sheet_int(sheet.get(attribute.casefold()))
    chosen: list[str] = []
    own = {str(s.get("name", "")).casefold(): s for s in character.specialities or []}
    for item in form_list(specialities):
        owner, _, name = item.partition(":")
        if not name:
            owner, name = str(character.pk), owner
        if owner != str(character.pk):
            continue  # another side's speciality, ticked in the same list
        row = own.get(name.casefold())
        if row is None:
            raise ValidationError(f"{character.name} has no speciality {name[:40]!r}.")
        if str(row.get("attribute", "")).casefold() != attribute.casefold():
            raise ValidationError(
                f"{row['name']} goes with {row.get('attribute', '?')}, not {attribute}."
            )
        if row["name"] not in chosen:
            chosen.append(row["name"])
    return attribute, value, chosen


def _rak_side(
    character: Character, attribute: Any, specialities: Any, ruleset: Any
) -> dict[str, Any]:
    """One rolling side's dice from the sheet: attribute + relevant specialities, K from mana."""
    attribute, value, chosen = _rak_sheet(character, attribute, specialities, ruleset)
    pool = rak.dice_pool(
        attribute=attribute,
        attribute_value=value,
        mana=character.mana or {},
        specialities=len(chosen),
        ruleset=ruleset,
    )
    if pool.rolled == 0:
        raise ValidationError(f"{character.name} has no dice for {attribute} (it is 0).")
    return {
        "character_id": character.pk,
        "name": character.name,
        "attribute": attribute,
        "attribute_value": value,
        "specialities": chosen,
        "rolled": pool.rolled,
        "kept": pool.kept,
        "roll": None,
    }


def _rak_difficulty(raw: Any, ruleset: Any) -> tuple[str, int]:
    text = str(raw or "").strip()
    if not text:
        raise ValidationError("Pick a difficulty.")
    number = rak.difficulty_value(int(text) if text.isdigit() else text[:60], ruleset=ruleset)
    names = [n for n, v in ruleset["difficulties"].items() if v == number]
    return (names[0] if names else str(number)), number


def _add_contest(scene: Scene, item: dict[str, Any]) -> dict[str, Any]:
    state = contest_view.state_of(scene)
    if len(state["items"]) >= MAX_CONTESTS:
        raise ValidationError(f"At most {MAX_CONTESTS} contests at once: clear a finished one.")
    # Secret contests count apart ("s1", "s2"): a gap in the players' numbers would tell them
    # that the GM set one up.
    counter = "next_secret" if item.get("secret") else "next"
    item["id"] = f"s{state[counter]}" if item.get("secret") else state[counter]
    state[counter] += 1
    state["items"].append(item)
    store_state(scene, contest_view.NAME, state)
    return item


def _describe(side: dict[str, Any]) -> str:
    what = side["attribute"]
    if side["specialities"]:
        what += " + " + ", ".join(side["specialities"])
    return f"{side['name']} ({what}: roll {side['rolled']}, keep {side['kept']})"


@scene_action(gm=True, system=SLUG, what="Opposed actions")
def contest_direct(
    *,
    scene: Scene,
    actor: Any,
    sides: list[tuple[Character, Any, Any]],
    difficulty: Any,
    context: CommandContext,
) -> SceneEvent:
    """Seed 001 "Directly opposed actions": "both characters roll their respective dice pools
    against a static difficulty determined by the GM"; each side rolls live."""
    ruleset = scene.campaign.effective_ruleset()
    if len(sides) != 2 or sides[0][0].pk == sides[1][0].pk:
        raise ValidationError("A directly opposed action has two different characters.")
    built = [_rak_side(c, a, s, ruleset) for c, a, s in sides]
    name, number = _rak_difficulty(difficulty, ruleset)
    item = _add_contest(
        scene,
        {
            "kind": "direct",
            "difficulty": number,
            "difficulty_name": name,
            "sides": built,
            "result": None,
        },
    )
    return record_event(
        scene=scene,
        kind="contest",
        actor=actor,
        public={
            "message": f"Directly opposed #{item['id']}: {_describe(built[0])} against "
            f"{_describe(built[1])}, both at {name} ({number}).",
        },
        context=context,
    )


@scene_action(gm=True, system=SLUG, what="Opposed actions")
def contest_indirect(
    *,
    scene: Scene,
    actor: Any,
    active: tuple[Character, Any, Any],
    passive: tuple[Character, Any, Any],
    secret: bool,
    context: CommandContext,
) -> SceneEvent:
    """Seed 001 "Indirectly opposed actions": the acting character rolls "with a difficulty
    equal to the passive character's relevant attribute and related specialities". With
    ``secret`` the GM keeps it from the players: the set-up and the roll are GM-only, so the
    passive player learns neither the roll nor their own character's difficulty."""
    ruleset = scene.campaign.effective_ruleset()
    if active[0].pk == passive[0].pk:
        raise ValidationError("The passive character must be someone else.")
    side = _rak_side(*active, ruleset)
    passive_character = passive[0]
    attribute, value, specialities = _rak_sheet(*passive, ruleset)
    difficulty = rak.indirect_difficulty(
        passive_attribute_value=value, passive_specialities=len(specialities)
    )
    passive_side = {
        "character_id": passive_character.pk,
        "name": passive_character.name,
        "attribute": attribute,
        "attribute_value": value,
        "specialities": specialities,
        "difficulty": difficulty,
    }
    item = _add_contest(
        scene,
        {
            "kind": "indirect",
            "secret": bool(secret),
            "difficulty": difficulty,
            "sides": [side],
            "passive": passive_side,
            "result": None,
        },
    )
    what = passive_side["attribute"]
    if passive_side["specialities"]:
        what += " + " + ", ".join(passive_side["specialities"])
    message = (
        f"Indirectly opposed #{item['id']}: {_describe(side)} against "
        f"{passive_side['name']}'s {what}: difficulty {difficulty}."
    )
    return record_event(
        scene=scene,
        kind="contest",
        actor=actor,
        audience=Audience.GM_ONLY if secret else Audience.EVERYONE,
        public={"message": message, "secret": bool(secret)},
        context=context,
    )


@scene_action(gm=True, system=SLUG, what="Extended actions")
def contest_extended(
    *,
    scene: Scene,
    actor: Any,
    side: tuple[Character, Any, Any],
    difficulty: Any,
    task: str,
    target: Any,
    minimum: Any = None,
    context: CommandContext,
) -> SceneEvent:
    """Seed 001 "Complex and Extended Actions": rounds of rolling accumulate successes toward the
    GM's total, optionally with a per-round minimum (RULES-NOTES). ``side``: the character
    that acts, its attribute and the specialities that count."""
    ruleset = scene.campaign.effective_ruleset()
    acting = _rak_side(*side, ruleset)
    name, number = _rak_difficulty(difficulty, ruleset)
    task = str(task or "").strip() or "Extended action"
    if len(task) > 80:
        raise ValidationError("Keep the task's name under 80 characters.")
    needed = whole(target, "Successes needed")
    per_round = None if minimum in (None, "", 0, "0") else whole(minimum, "Per-round minimum")
    if not 1 <= needed <= 99 or (per_round is not None and not 0 <= per_round <= 30):
        raise ValidationError("Ask for 1 to 99 successes, and at most 30 in each round.")
    action = rak.ExtendedAction(target=needed, minimum=per_round)
    item = _add_contest(
        scene,
        {
            "kind": "extended",
            "task": task,
            "difficulty": number,
            "difficulty_name": name,
            "sides": [acting],
            "action": action.to_dict(),
        },
    )
    rounds = f", at least {per_round} each round" if per_round else ""
    return record_event(
        scene=scene,
        kind="contest",
        actor=actor,
        public={
            "message": f"Extended action #{item['id']} “{task}”: {_describe(acting)} at "
            f"{name} ({number}) needs {needed} successes{rounds}.",
        },
        context=context,
    )


def _find_contest(state: dict[str, Any], contest_id: Any) -> dict[str, Any]:
    wanted = str(contest_id or "").strip().casefold()
    for item in state["items"]:
        if str(item["id"]) == wanted:
            return item
    raise ValidationError("There is no such contest here.")


def _rak_detail(result: rak.RollResult, side: dict[str, Any], name: str) -> dict[str, Any]:
    detail = result.to_dict()
    detail.update(
        attribute=side["attribute"],
        attribute_value=side["attribute_value"],
        speciality_names=side["specialities"],
        difficulty_name=name,
    )
    return detail


def _settle_direct(item: dict[str, Any], ruleset: Any) -> rak.DirectContest:
    """Both sides' dice as rolled, read again by the rules: net successes, winner, margin."""
    own, opponent = (
        rak.score_dice(
            faces=side["roll"]["faces"],
            kept=side["kept"],
            difficulty=item["difficulty"],
            ruleset=ruleset,
        )
        for side in item["sides"]
    )
    return rak.resolve_directly_opposed(own=own, opponent=opponent)


def _rolling_side(
    scene: Scene, actor: Any, state: dict[str, Any], contest_id: Any, side: Any
) -> tuple[dict[str, Any], dict[str, Any], RollAndKeepSheet]:
    """(the contest, its side that rolls, that side's character), once ``actor`` may roll it and
    the side has a roll to make."""
    item = _find_contest(state, contest_id)
    if item.get("secret") and scene.campaign.gm_id != actor.pk:
        raise ValidationError("There is no such contest here.")  # don't confirm it exists
    index = whole(side, "Which side?")
    if not 0 <= index < len(item["sides"]):
        raise ValidationError("There is no such side.")
    rolling = item["sides"][index]
    character = (
        RollAndKeepSheet.objects.filter(campaign=scene.campaign)
        .filter(pk=rolling["character_id"])
        .first()
    )
    if character is None:
        raise ValidationError("That character is no longer in this campaign.")
    require_player(scene, actor, character)
    if item["kind"] != "extended" and rolling["roll"] is not None:
        raise ValidationError(f"{rolling['name']} has already rolled.")
    if item["kind"] == "extended":
        action = rak.ExtendedAction.from_dict(item["action"])
        if action.finished:
            raise ValidationError(f"This action has already {action.status.value}.")
    return item, rolling, character


def _roll_side(
    item: dict[str, Any], rolling: dict[str, Any], ruleset: Any, rng: Rng | None
) -> rak.RollResult:
    """The side's roll and keep against the contest's difficulty, or against the passive
    character's sheet (seed 001's indirectly opposed actions)."""
    pool = {
        "attribute_value": rolling["attribute_value"],
        "specialities": len(rolling["specialities"]),
        "kept": rolling["kept"],
        "rng": api.game_dice(rng),
        "ruleset": ruleset,
    }
    if item["kind"] == "indirect":
        # The passive sheet's number as it is: over 10 no die can meet it.
        return rak.roll_indirectly_opposed(
            **pool,
            passive_attribute_value=item["passive"]["attribute_value"],
            passive_specialities=len(item["passive"]["specialities"]),
        )
    return rak.roll(**pool, difficulty=item["difficulty"])


def _note_roll(
    item: dict[str, Any], rolling: dict[str, Any], result: rak.RollResult, ruleset: Any
) -> dict[str, Any]:
    """Write the roll into the contest (the view's state) and return where the contest stands
    for the card: a directly opposed action settled by its second roll, the passive side of an
    indirect one, an extended action's running total."""
    rolling["roll"] = {
        "successes": result.successes,
        "botch": result.botch,
        "faces": [d.rolled for d in result.dice],
    }
    contest: dict[str, Any] = {"id": item["id"], "kind": item["kind"]}
    if item["kind"] == "direct":
        contest["side"] = rolling["name"]
        if all(s["roll"] is not None for s in item["sides"]):
            settled = _settle_direct(item, ruleset)
            first, second = item["sides"]
            winner = {rak.OWN: first["name"], rak.OPPONENT: second["name"]}.get(settled.winner)
            item["result"] = {"net": settled.margin, "winner": winner}
            contest.update(
                settled=True,
                line=f"{first['name']} {settled.own.successes} − {second['name']} "
                f"{settled.opponent.successes}",
                winner=winner,
                margin=settled.margin,
            )
    elif item["kind"] == "indirect":
        item["result"] = {"successes": result.successes, "botch": result.botch}
        contest["passive"] = item["passive"]["name"]
    else:
        action = rak.ExtendedAction.from_dict(item["action"]).add_round(result)
        item["action"] = action.to_dict()
        contest.update(
            task=item["task"],
            accumulated=action.accumulated,
            target=action.target,
            round=len(action.rounds),
            status=action.status.value,
        )
    return contest


#: The card's label for each kind of contest.
CONTEST_LABELS = {"direct": "Directly opposed", "indirect": "Indirectly opposed"}


def _contest_outcome(
    item: dict[str, Any],
    rolling: dict[str, Any],
    result: rak.RollResult,
    contest: dict[str, Any],
) -> RollOutcome:
    """The card: which side rolled against what, its successes and degree, and where the
    contest now stands."""
    difficulty_name = item.get("difficulty_name") or str(item["difficulty"])
    detail = _rak_detail(result, rolling, difficulty_name)
    detail["contest"] = contest
    title = f"#{item['id']} {_describe(rolling)} vs {difficulty_name} ({item['difficulty']})"
    if item["kind"] == "indirect":
        title = (
            f"#{item['id']} {_describe(rolling)} vs {item['passive']['name']}: "
            f"difficulty {item['difficulty']}"
        )
    summary = f"{result.successes} success{'es' if result.successes != 1 else ''}"
    if result.botch:
        summary = "Botch!"
    elif result.successes:
        summary += f": {result.degree}"
    if contest.get("settled"):
        summary += (
            f" — {contest['winner']} wins by {contest['margin']}"
            if contest["winner"]
            else " — a tie: the status quo holds"
        )
    if item["kind"] == "extended":
        summary += f" — {contest['accumulated']} / {contest['target']}"
        if contest["status"] != "in_progress":
            summary += f", {contest['status']}"
    outcome = "botch" if result.botch else "success" if result.successes else "failure"
    if contest.get("settled"):
        # The card that settles a contest is the whole table's, the loser's too: its badge
        # names the winner in a neutral colour, never "Success" to the side that lost.
        detail["band_label"] = f"{contest['winner']} wins" if contest["winner"] else "A tie"
        outcome = "settled"
    return RollOutcome(title=title, summary=summary, detail=detail, outcome=outcome)


@scene_action(system=SLUG, what="Opposed actions")
def contest_roll(
    *,
    scene: Scene,
    actor: Any,
    contest_id: Any,
    side: Any = 0,
    rng: Rng | None = None,
    context: CommandContext,
) -> SceneEvent:
    """A side of a contest rolls (its player or the GM; a secret contest only the GM), or the
    next round of an extended action. The second roll of a directly opposed action settles it:
    net successes, the winner and the margin (a tie keeps the status quo)."""
    ruleset = scene.campaign.effective_ruleset()
    state = contest_view.state_of(scene)
    item, rolling, character = _rolling_side(scene, actor, state, contest_id, side)
    result = _roll_side(item, rolling, ruleset, rng)
    contest = _note_roll(item, rolling, result, ruleset)
    store_state(scene, contest_view.NAME, state)
    label = CONTEST_LABELS.get(item["kind"]) or f"Extended: {item.get('task', '')}"
    return record_roll(
        scene=scene,
        actor=actor,
        character=character,
        roll_kind="rak_contest",
        label=label,
        outcome=_contest_outcome(item, rolling, result, contest),
        mode="secret" if item.get("secret") else "public",
        context=context,
    )


@scene_action(gm=True, system=SLUG, what="Opposed actions")
def contest_clear(
    *, scene: Scene, actor: Any, contest_id: Any, context: CommandContext
) -> SceneEvent:
    """The GM takes a contest off the view (finished or abandoned)."""
    state = contest_view.state_of(scene)
    item = _find_contest(state, contest_id)
    state["items"] = [i for i in state["items"] if i["id"] != item["id"]]
    store_state(scene, contest_view.NAME, state)
    return record_event(
        scene=scene,
        kind="contest",
        actor=actor,
        audience=Audience.GM_ONLY if item.get("secret") else Audience.EVERYONE,
        public={"message": f"#{item['id']} is cleared."},
        context=context,
    )


# --- commands ---


def _side(prefix: str) -> Parsed:
    """One side of a contest: (character, attribute, specialities) from ``<prefix>`` fields."""

    def read(scene: Scene, user: Any, data: Any) -> tuple[Character, Any, Any]:
        character = campaign_character(
            scene, data.get(f"{prefix}character"), "Pick both characters."
        )
        return character, data.get(f"{prefix}attribute"), data.get(f"{prefix}specialities")

    return Parsed(read)


COMMANDS = (
    Command(
        "contest_direct",
        contest_direct,
        gm=True,
        sides=Parsed(lambda s, u, d: [_side("a_").read(s, u, d), _side("b_").read(s, u, d)]),
        difficulty=Raw("difficulty"),
    ),
    Command(
        "contest_indirect",
        contest_indirect,
        gm=True,
        active=_side("a_"),
        passive=_side("p_"),
        secret=Flag("secret"),
    ),
    Command(
        "contest_extended",
        contest_extended,
        gm=True,
        side=_side("a_"),
        difficulty=Raw("difficulty"),
        task=Parsed(lambda scene, user, data: str(data.get("task") or "")),
        target=Raw("target"),
        minimum=Raw("minimum"),
    ),
    Command(
        "contest_roll",
        contest_roll,
        contest_id=Raw("contest"),
        side=Parsed(lambda scene, user, data: data.get("side", 0)),
    ),
    Command("contest_clear", contest_clear, contest_id=Raw("contest")),
)
