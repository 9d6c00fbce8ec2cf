"""No consequence of a hidden roll shows before its reveal (SECURITY.md, "Hidden outcomes").

For every roll kind and every hidden mode, rolls with different outcomes (hit/miss, success/
failure, explosion/none, every band) give every outsider the same live frames, the same replay
and the same scene page, once seq numbers, times and commitments are set aside. An outsider is
anyone outside the roll's audience: the other player for a private roll, both players for a
blind or secret roll (the blind roller too), the GM and the other player for a self roll.
"""

from __future__ import annotations

import difflib
import random
import re
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.test import Client
from django.urls import reverse

from tabletop.characters.models import Character
from tabletop.scenes import actions, command_threads
from tabletop.scenes.audiences import Viewer, groups_for
from tabletop.scenes.selectors import replay_frames
from tabletop.systems.conductor import bennies, expedition, strike_back
from tests.support.tables import make_table, mira_and_troll
from tests.tabletop.systems.roll_forms import ROLL_FORM_INPUTS

#: Who rolls in each hidden mode, and who is outside its audience.
MODES = {
    "gm": ("alice", ("bob",)),
    "blind": ("alice", ("alice", "bob")),
    "self": ("alice", ("gm", "bob")),
    "secret": ("gm", ("alice", "bob")),
}
SEEDS = range(60)
#: Distinct outcomes compared per kind and mode (enough for hit/miss, explosion/none, bands).
ENOUGH_OUTCOMES = 4


def _normalise(text: str) -> str:
    text = re.sub(r"[0-9a-f]{64}", "<hash>", text)
    text = re.sub(r"<code title=\"<hash>\">[^<]*</code>", "<hash>", text)
    text = re.sub(r"<time[^>]*>.*?</time>", "<time>", text, flags=re.S)
    text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "<csrf>", text)
    text = re.sub(r'"X-CSRFToken": *"[^"]*"', "<csrf>", text)
    return re.sub(r"\d+", "<n>", text)  # seqs, ids and times: what differs between two rolls


def _what_outsiders_see(table, mode, *, kind, data, people, seed, capture):
    """Roll once inside a savepoint; return the secret roll and what each outsider got: live
    frames, the replay and the scene page. The savepoint is rolled back, so every roll starts
    from the same table (same seq, same sheets)."""
    roller, outsiders = MODES[mode]
    users = {"gm": table.gm, "alice": table.alice, "bob": table.bob}
    data = dict(data)
    character = foe = None
    if kind.startswith("conductor_"):
        character = people["mira"]
    if kind == "conductor_heal":
        data["patient"] = str(people["mira"].pk)
    if kind == "conductor_attack" and mode != "self":  # a self roll is not made against a foe
        foe = people["troll"]
    sent: list[tuple[str, dict[str, Any]]] = []
    sid = transaction.savepoint()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(
                command_threads, "group_send", lambda group, msg: sent.append((group, msg))
            )
            with capture(execute=True):
                event = actions.roll(
                    scene=table.scene,
                    actor=users[roller],
                    roll_kind=kind,
                    mode=mode,
                    character=character,
                    data=data,
                    foe=foe,
                    rng=random.Random(seed),
                )
        seen = {}
        for name in outsiders:
            user = users[name]
            viewer = Viewer(user.pk, user.pk == table.gm.pk)
            groups = set(groups_for(table.scene.pk, viewer))  # what their socket joins
            frames = [
                msg["html"]
                for group, msg in sent
                if group in groups and user.pk not in msg.get("exclude", ())
            ]
            replay = replay_frames(scene_id=table.scene.pk, viewer=viewer, after_seq=event.seq - 1)
            client = Client()
            client.force_login(user)
            page = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
            seen[name] = [_normalise(f) for f in (*frames, "--replay--", *replay, "--page--", page)]
        return event.secret, seen
    finally:
        transaction.savepoint_rollback(sid)


def _diff(a: str, b: str) -> str:
    return "\n".join(list(difflib.unified_diff(a.splitlines(), b.splitlines(), n=1))[:40])


def _outcome_key(secret: dict[str, Any]) -> tuple:
    """What makes two rolls different outcomes: the verdict, the summary (hits, bands, totals)
    and whether any die exploded."""
    result = secret.get("result", {})
    dice = result.get("dice") or []
    exploded = any(isinstance(d, dict) and d.get("exploded") for d in dice)
    return secret.get("outcome"), secret.get("summary"), exploded


@pytest.mark.django_db
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("kind", sorted(ROLL_FORM_INPUTS))
def test_outsiders_see_the_same_whatever_a_hidden_roll_shows(
    kind, mode, django_capture_on_commit_callbacks
):
    system, data = ROLL_FORM_INPUTS[kind]
    _same_whatever_the_roll_shows(system, kind, data, mode, django_capture_on_commit_callbacks)


@pytest.mark.django_db
@pytest.mark.parametrize("mode", sorted(MODES))
def test_any_games_rolls_hide_as_every_roll_does(mode, django_capture_on_commit_callbacks):
    # Any game rolls in the dice language alone (issue 43): its hidden rolls hide the same.
    data = {"expression": "1d20+5"}
    _same_whatever_the_roll_shows(
        "any_game", "expression", data, mode, django_capture_on_commit_callbacks
    )


def _same_whatever_the_roll_shows(system, kind, data, mode, capture):
    table = make_table(system=system)
    mira, troll = mira_and_troll(table)
    people = {"mira": mira, "troll": troll}
    by_outcome: dict[tuple, dict[str, list[str]]] = {}
    for seed in SEEDS:
        secret, seen = _what_outsiders_see(
            table,
            mode,
            kind=kind,
            data=data,
            people=people,
            seed=seed,
            capture=capture,
        )
        by_outcome.setdefault(_outcome_key(secret), seen)
        if len(by_outcome) >= ENOUGH_OUTCOMES:
            break
    assert len(by_outcome) >= 2, f"{kind}: {SEEDS} gave one outcome only; widen the seeds"
    (first_key, first), *others = by_outcome.items()
    for key, seen in others:
        for name in first:
            assert len(seen[name]) == len(first[name]), (kind, mode, name, first_key, key)
            for a, b in zip(first[name], seen[name], strict=True):
                assert a == b, (kind, mode, name, first_key, key, _diff(a, b))


@pytest.mark.django_db
def test_a_hidden_roll_gets_the_same_refusal_whatever_it_is():
    # Before the fix the error words told a player the hidden roll's kind ("Bennies go on
    # standard and attack rolls", "That roll is not a heal"), that it had no character, or
    # whose character it was, before "reveal this roll first".
    table = make_table(system="conductor")
    mira = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Mira",
        skills=[{"name": "Acrobatics", "value": 1, "specialisation": ""}],
        bennies=2,
    )
    rolls = [
        actions.roll(
            scene=table.scene,
            actor=table.alice,
            roll_kind=kind,
            mode=mode,
            character=character,
            data=data,
        )
        for kind, mode, character, data in [
            ("expression", "gm", None, {"expression": "1d6"}),
            ("conductor_standard", "blind", mira, {"skill_name": "Acrobatics", "difficulty": 7}),
            ("conductor_attack", "gm", mira, {"skill_name": "Acrobatics", "difficulty": 4}),
            ("conductor_heal", "blind", mira, {"difficulty": "3", "patient": str(mira.pk)}),
        ]
    ]
    commands = {
        "benny": lambda seq: bennies.benny(
            scene=table.scene, actor=table.bob, seq=seq, die_index=0
        ),
        "heal": lambda seq: expedition.heal_apply(scene=table.scene, actor=table.bob, seq=seq),
        "strike back": lambda seq: strike_back.strike_back(
            scene=table.scene, actor=table.bob, seq=seq
        ),
    }
    for name, command in commands.items():
        said = set()
        for roll in rolls:
            with pytest.raises(ValidationError) as refused:
                command(roll.seq)
            said.add(str(refused.value))
        assert len(said) == 1, (name, said)
        assert "reveal this roll first" in said.pop()


@pytest.mark.django_db
def test_a_later_hidden_roll_does_not_stop_a_spend_on_the_latest_open_one():
    # Before the fix the GM's secret roll for Mira made her benny fail with "has rolled
    # since", which told her player that a hidden roll about her exists.
    table = make_table(system="conductor")
    mira = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Mira",
        skills=[{"name": "Acrobatics", "value": 1, "specialisation": ""}],
        bennies=2,
    )
    data = {"skill_name": "Acrobatics", "difficulty": 7}
    open_roll = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="conductor_standard",
        character=mira,
        data=data,
        rng=random.Random(1),
    )
    actions.roll(
        scene=table.scene,
        actor=table.gm,
        roll_kind="conductor_standard",
        mode="secret",
        character=mira,
        data=data,
    )
    bennies.benny(scene=table.scene, actor=table.alice, seq=open_roll.seq)
    mira.refresh_from_db()
    assert mira.bennies == 1
