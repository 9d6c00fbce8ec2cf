"""The operation challenge view (annulus): two views of one challenge.

The GM's view shows the whole chain: hidden dice in place with their numbers, jammed dice, the
fewest adjustments still needed and whether the chain can still be solved. The players' view is
built from the visible dice ONLY (``Challenge.visible_values()`` and friends): no placeholder, no
chain position, no count of hidden dice, so no template can leak what it is never given. Once
the challenge has ended the layout is public and both views show the whole chain.

The raw ``state`` (which holds every die) is withheld from the template: it gets ``view`` only.
"""

from __future__ import annotations

from typing import Any

from rules import annulus
from rules.annulus import Challenge
from tabletop.systems.annulus.actions import STATE_KEY
from tabletop.systems.annulus.models import AnnulusSheet
from tabletop.systems.api import Character, ProcedureView, percent, procedure_state

#: Training-perk dice the odds line shows (0 = none).
ODDS_TRAINING = (0, 1, 2, 3)


def _pairs(values: tuple[int, ...]) -> list[bool]:
    return [abs(a - b) == 1 for a, b in zip(values, values[1:], strict=False)]


def _just_revealed(state: dict[str, Any]) -> int | None:
    last = state.get("last") or {}
    return last.get("visible_index") if last.get("kind") == "reveal" else None


def player_view(challenge: Challenge, state: dict[str, Any]) -> dict[str, Any]:
    """What players see during the challenge: the visible dice in order, nothing else."""
    values = challenge.visible_values()
    jammed = set(challenge.visible_jammed())
    pairs = _pairs(values)
    count = len(values)
    revealed = _just_revealed(state)
    dice = []
    for k, value in enumerate(values):
        name = f"die {k + 1}"
        dice.append(
            {
                "name": name,
                "value": value,
                "jammed": k in jammed,
                "visible_index": k,
                "label": f"{name} of {count}: {value}" + (", jammed" if k in jammed else ""),
                "can_down": value > 1,
                "can_up": value < annulus.FACES,
                "just_revealed": k == revealed,
                "pair_after": pairs[k] if k < len(pairs) else None,
                "next_name": f"die {k + 2}",
            }
        )
    return {
        "dice": dice,
        "in_view": count,
        "visible_solved": challenge.visible_solved,
    }


def gm_view(challenge: Challenge, state: dict[str, Any]) -> dict[str, Any]:
    """The GM's whole chain, hidden dice in place, with the GM help (RULES-NOTES)."""
    values = challenge.values
    hidden, jammed = set(challenge.hidden), set(challenge.jammed)
    visible = challenge.visible_indices()
    pairs = _pairs(values)
    revealed = _just_revealed(state)
    length = challenge.length
    dice = []
    for p, value in enumerate(values):
        k = visible.index(p) if p in visible else None
        name = f"position {p + 1}"
        notes = ", hidden" if p in hidden else (", jammed" if p in jammed else "")
        seen_as = f" (players' die {k + 1} of {len(visible)})" if k is not None else ""
        dice.append(
            {
                "name": name,
                "value": value,
                "hidden": p in hidden,
                "jammed": p in jammed,
                "position": p,
                "visible_index": k,
                "label": f"{name} of {length}: {value}{notes}{seen_as}",
                "can_down": value > 1,
                "can_up": value < annulus.FACES,
                "just_revealed": k is not None and k == revealed,
                "pair_after": pairs[p] if p < len(pairs) else None,
                "next_name": f"position {p + 2}",
            }
        )
    return {
        "dice": dice,
        "in_view": len(visible),
        "length": length,
        "hidden_count": len(hidden),
        "visible_solved": challenge.visible_solved,
        "remaining_adjustments": challenge.remaining_adjustments,
        "solvable": challenge.solvable,
        "can_reveal": challenge.can_reveal,
    }


def final_view(challenge: Challenge, state: dict[str, Any]) -> dict[str, Any]:
    """After the end the layout is published: everyone sees the whole chain as it ended."""
    view = gm_view(challenge, state)
    for die in view["dice"]:
        die["name"] = die["name"].replace("position", "die")
        die["next_name"] = die["next_name"].replace("position", "die")
        note = ", was hidden" if die["hidden"] else (", jammed" if die["jammed"] else "")
        die["label"] = f"{die['name']} of {view['length']}: {die['value']}{note}"
    view["published"] = state.get("published") or {}
    return view


def _toolkit(challenge: Challenge, rules: dict[str, Any], *, gm: bool) -> list[dict[str, Any]]:
    """The abilities with their odds (no training), whether a failure greyed them out, and
    exactly what each buys if its check passes (issue 16): counted on the chain as the players
    see it, so a player's page says nothing a hidden die decides. Only the GM's page says what
    a reveal would show."""
    tools = []
    for tool in annulus.toolkit_abilities(ruleset=rules):
        odds = percent(
            annulus.toolkit_check_probability(
                ability=tool.name, difficulty=challenge.difficulty, ruleset=rules
            )
        )
        buys = _buys(challenge, tool.effect, gm=gm)
        tools.append(
            {
                "name": tool.name,
                "effect": tool.effect,
                "description": tool.description,
                "available": challenge.ability_available(tool.name),
                "odds": odds,
                **buys,
                "label": f"Use {tool.name} (check passes {odds} without training): "
                + buys["headline"].replace(" → ", " to "),
            }
        )
    return tools


def _left(count: int | None, *, short: bool = False) -> str:
    """Fewest adjustments still needed, in words ("solved" at none, "unsolvable" at None)."""
    if count is None:
        return "unsolvable"
    if count == 0:
        return "solved"
    return f"{count} left" if short else f"{count} adjustment{'s' if count != 1 else ''} left"


def _buys(challenge: Challenge, effect: str, *, gm: bool) -> dict[str, Any]:
    """``headline`` (what the ability does at best), ``lines`` (die by die), ``choices`` (the
    die picker's options) and ``best`` (for Calibrate, the move the headline names,
    ``{"die", "value"}``, which its form starts at; else None), from rules
    ``annulus.spend_odds``."""
    values, jammed = challenge.visible_values(), challenge.visible_jammed()
    now = _left(challenge.remaining_adjustments)
    lines: list[str] = []
    chosen: dict[str, int] | None = None  # set_value: the best move, the form's default
    freed: dict[int, str] = {}  # unjam: what freeing each jammed die leaves
    if effect == "set_value":
        best = None
        for k in range(len(values)):
            if k in jammed:
                continue
            found = annulus.best_set_value(values, jammed, index=k)
            (after,) = found.after
            lines.append(f"die {k + 1} ({values[k]}): best {found.value}, {_left(after)}")
            if best is None or _fewer(after, next(iter(best.after))):
                best = found
        if best is None:
            return {"headline": "no die it can set", "lines": [], "choices": [], "best": None}
        headline = f"{now} → {_left(next(iter(best.after)))} (die {best.index + 1} to {best.value})"
        chosen = {"die": best.index, "value": best.value}
    elif effect == "unjam":
        for k in jammed:
            found = annulus.toolkit_effect(values, jammed, effect="unjam", index=k)
            freed[k] = _left(next(iter(found.after)))
            lines.append(f"die {k + 1} ({values[k]}): {now} → {freed[k]}")
        headline = "; ".join(lines) if lines else "no jammed die to free"
        lines = []
    elif effect == "reroll":
        for k, value in enumerate(values):
            if k in jammed:
                continue
            found = annulus.toolkit_effect(values, jammed, effect="reroll", index=k)
            shares = ", ".join(
                f"{_left(count, short=True)} {percent(p)}" for count, p in found.after.items()
            )
            lines.append(f"die {k + 1} ({value}): {shares}")
        headline = f"{now} now; a fresh d12 on the die (each number 1 in 12) leaves"
    else:  # reveal: what it shows is a hidden die's, so only the GM's page may say it
        if gm:
            for position in challenge.hidden:
                found = annulus.reveal_effect(challenge, position=position)
                lines.append(
                    f"position {position + 1} ({found.value}): {now} → "
                    f"{_left(next(iter(found.after)))}"
                )
        headline = f"{now} now; what it shows is hidden until it passes"
    # The die picker: unjammed dice (jammed ones for unjam); what each buys is in ``lines``.
    picks = jammed if effect == "unjam" else [k for k in range(len(values)) if k not in jammed]
    choices = [{"index": k, "text": f"die {k + 1}: {values[k]}"} for k in picks]
    for choice in choices:
        choice["selected"] = chosen is not None and choice["index"] == chosen["die"]
    return {"headline": headline, "lines": lines, "choices": choices, "best": chosen}


def _fewer(a: int | None, b: int | None) -> bool:
    return a is not None and (b is None or a < b)


def _op_odds(challenge: Challenge, rules: dict[str, Any]) -> list[tuple[int, str]]:
    return [
        (
            dice,
            percent(
                annulus.op_check_probability(
                    difficulty=challenge.difficulty, perk_dice=dice, ruleset=rules
                )
            ),
        )
        for dice in ODDS_TRAINING
    ]


def challenge_context(scene: Any, viewer: Any) -> dict[str, Any]:
    rules = scene.campaign.effective_ruleset()
    state = procedure_state(scene, STATE_KEY)
    ctx: dict[str, Any] = {
        "state": None,  # holds every hidden die: the template gets views only
        "rules": rules,
        "view": None,
        # Called only by the page-load rendering (the "act as" choice outside the view).
        "own_characters": lambda: _own_characters(scene, viewer),
    }
    if not state:
        return ctx
    challenge = Challenge.from_dict(state["challenge"])
    ended = state.get("ended")
    if ended:
        view = final_view(challenge, state)
    elif viewer.is_gm:
        view = gm_view(challenge, state)
    else:
        view = player_view(challenge, state)
    view.update(
        number=state["number"],
        difficulty=challenge.difficulty,
        needed=challenge.needed,
        types=list(challenge.types),
        commitment=state.get("commitment", ""),
        ended=ended,
        running=not ended,
    )
    ctx["view"] = view
    if not ended:
        ctx["toolkit"] = _toolkit(challenge, rules, gm=viewer.is_gm)
        ctx["op_odds"] = _op_odds(challenge, rules)
        ctx["op_dice"] = rules["op_check_dice"]
    return ctx


def _own_characters(scene: Any, viewer: Any) -> list[Character]:
    if viewer.user_id is None:
        return []
    characters = AnnulusSheet.objects.filter(campaign=scene.campaign).order_by("role", "name")
    if not viewer.is_gm:
        characters = characters.filter(owner_id=viewer.user_id)
    return list(characters)


VIEW = ProcedureView(
    name=STATE_KEY,
    label="Operation challenge",
    template="systems/annulus/procedures/challenge.html",
    context=challenge_context,
)
