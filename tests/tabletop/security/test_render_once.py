"""The broadcast's shared renders (``render.Renders``) never hand a viewer someone else's bytes.

A card or tool rendered for one viewer is reused for another only when its templates
looked up nothing that tells them apart; a frame that is the same for the GM, the actor and
everyone else goes out once, to the whole scene. Here, for every roll kind of every system
in every mode, what each member's socket receives is exactly the frame rendered for them
alone, from scratch.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db import transaction
from django.template.loader import render_to_string

from tabletop.characters.models import Character
from tabletop.scenes import actions, command_threads, render
from tabletop.scenes.audiences import Viewer, gm_group, groups_for, players_group, scene_group
from tabletop.scenes.fragments import render_fragment
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.modes import MODES
from tabletop.scenes.render import VIEWER_KEYS, _Asked, render_frame
from tabletop.scenes.tools import tools_context
from tests.support.tables import make_table, mira_and_troll
from tests.tabletop.systems.roll_forms import ROLL_FORM_INPUTS


def _people(table) -> dict[str, Character]:
    mira, troll = mira_and_troll(
        table, bennies=2, resources={"Focus": {"current": 5, "max": 5}}, attributes={"Wits": 2}
    )
    return {"mira": mira, "troll": troll}


def _roll(table, people, *, kind, mode, capture) -> tuple[Any, list[tuple[str, dict]]]:
    _system, data = ROLL_FORM_INPUTS[kind]
    data = dict(data)
    actor = table.gm if MODES[mode].gm_only else table.alice
    character = foe = None
    if kind.startswith(("conductor_", "two_dice")):
        character = people["mira"]
    if kind == "conductor_heal":
        data["patient"] = str(people["mira"].pk)
    if kind == "conductor_attack" and mode != "self":
        foe = people["troll"]
    sent: list[tuple[str, dict[str, Any]]] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(command_threads, "group_send", lambda group, msg: sent.append((group, msg)))
        with capture(execute=True):
            event = actions.roll(
                scene=table.scene,
                actor=actor,
                roll_kind=kind,
                mode=mode,
                character=character,
                data=data,
                foe=foe,
                rng=random.Random(7),
            )
    return event, sent


def _received(sent, viewer: Viewer, scene_id: int, seq: int) -> list[str]:
    """What a socket of ``viewer`` forwards for event ``seq``: the messages of its groups
    that carry html and do not exclude it (as ``SceneConsumer.scene_event`` does)."""
    groups = set(groups_for(scene_id, viewer))
    return [
        msg["html"]
        for group, msg in sent
        if group in groups
        and msg["type"] == "scene.event"
        and msg["seq"] == seq
        and viewer.user_id not in msg.get("exclude", ())
        and msg["html"]
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("kind", sorted(ROLL_FORM_INPUTS))
def test_every_member_gets_exactly_their_own_frame(kind, mode, django_capture_on_commit_callbacks):
    system, _data = ROLL_FORM_INPUTS[kind]
    table = make_table(system=system)
    people = _people(table)
    sid = transaction.savepoint()
    try:
        event, sent = _roll(
            table, people, kind=kind, mode=mode, capture=django_capture_on_commit_callbacks
        )
        for user in (table.gm, table.alice, table.bob):
            viewer = Viewer(user.pk, user.pk == table.gm.pk)
            alone = render_frame(event, viewer, live=True)  # no shared renders
            got = _received(sent, viewer, table.scene.pk, event.seq)
            assert got == ([alone] if alone else []), (kind, mode, user.username)
    finally:
        transaction.savepoint_rollback(sid)


@pytest.mark.django_db
def test_a_public_roll_goes_out_once_and_a_hidden_one_per_viewer_class(
    django_capture_on_commit_callbacks,
):
    table = make_table(system="conductor")
    people = _people(table)
    event, sent = _roll(
        table, people, kind="expression", mode="public", capture=django_capture_on_commit_callbacks
    )
    assert [group for group, _msg in sent] == [scene_group(table.scene.pk)]
    event, sent = _roll(
        table, people, kind="expression", mode="gm", capture=django_capture_on_commit_callbacks
    )
    groups = [group for group, _msg in sent]
    assert scene_group(table.scene.pk) not in groups
    assert len(groups) == 3  # the GM's, the actor's own, everyone else's (excluding the actor)
    gm_frame, mine, other = (msg["html"] for _group, msg in sent)
    # (Not a search for the dice's text: a commitment's random hex may hold any short string.)
    assert "privately to the GM" in other and 'class="roll-title"' not in other
    assert 'class="roll-title"' in gm_frame and 'class="roll-title"' in mine
    assert gm_frame != mine  # the GM's frame adds the roll to the hidden results
    # One card for the GM and the roller: the Reveal button is marked for the GM's page alone.
    reveal = f'data-only-for="{table.gm.pk}"><input type="hidden" name="command" value="reveal">'
    assert reveal in gm_frame and reveal in mine
    # A blind roll: the roller's stub is the table's (each page keeps its own line), so it
    # goes out twice: the GM's frame, and one to every player.
    event, sent = _roll(
        table, people, kind="expression", mode="blind", capture=django_capture_on_commit_callbacks
    )
    assert [group for group, _msg in sent] == [
        gm_group(table.scene.pk),
        players_group(table.scene.pk),
    ]
    stub = sent[1][1]["html"]
    assert f'<span data-only-for="{table.alice.pk}">You rolled blind' in stub
    assert f'<span data-not-for="{table.alice.pk}">rolled blind.</span>' in stub


@pytest.mark.django_db
def test_a_hidden_rolls_cards_are_rendered_once_per_visibility(
    django_capture_on_commit_callbacks, monkeypatch
):
    table = make_table(system="conductor")
    people = _people(table)
    rendered: list[str] = []
    real = render._render_card

    def counting(event, vis, viewer, **kwargs):
        rendered.append(vis)
        return real(event, vis, viewer, **kwargs)

    monkeypatch.setattr(render, "_render_card", counting)
    for mode in ("gm", "blind"):
        rendered.clear()
        _roll(
            table, people, kind="expression", mode=mode, capture=django_capture_on_commit_callbacks
        )
        assert sorted(rendered) == ["full", "stub"], mode  # was three: the roller's apart


def test_the_watched_context_sees_every_way_a_template_can_ask():
    ctx = _Asked({"viewer_is_gm": True, "is_actor": False, "data": {}})
    assert "data" in ctx and ctx["data"] == {} and ctx.asked == set()
    assert "viewer_is_gm" in ctx
    assert ctx.asked == {"viewer_is_gm"}
    assert ctx.get("is_actor") is False and ctx.asked == {"viewer_is_gm", "is_actor"}
    assert ctx.get("for_viewer") is None and ctx.asked == set(VIEWER_KEYS)
    for copy in (dict, lambda c: c.copy(), lambda c: list(c), lambda c: list(c.items())):
        fresh = _Asked({"viewer_is_gm": True})
        copy(fresh)
        assert fresh.asked == set(VIEWER_KEYS)  # a copy may be read anywhere: all were asked


@pytest.mark.django_db
@pytest.mark.parametrize("is_gm", [True, False])
def test_fragments_print_numbers_as_the_locale_would(is_gm):
    # render_fragment skips the locale's per-number lookup; en-gb prints the same digits.
    table = make_table(system="two_dice")
    _people(table)
    Character.objects.create(
        campaign=table.campaign,
        owner=table.bob,
        name="Big numbers",
        resources={"Focus": {"current": 123456, "max": 1234567}},
    )
    ctx = tools_context(table.scene, Viewer(table.gm.pk if is_gm else None, is_gm))
    for name in ("scenes/_party.html", "scenes/_dashboard.html"):
        fragment = render_fragment(name, dict(ctx))
        assert fragment == render_to_string(name, dict(ctx))
        assert "1234567" in fragment or name.endswith("_dashboard.html")


@pytest.mark.django_db
def test_a_hidden_check_sends_no_row_that_names_its_character(django_capture_on_commit_callbacks):
    # An open check sends its roller's numbers alone (party-<id>-...). A hidden one changes no
    # sheet until its reveal, and a row would tell bob whose check it was: it sends none, and
    # the reveal, which pays, sends whole tools.
    table = make_table(system="two_dice")
    mira = _people(table)["mira"]
    check = {"attribute": "Wits", "resource": "Focus", "difficulty": "Normal"}
    bob = Viewer(table.bob.pk, False)

    def sent_by(action) -> list[str]:
        sent: list[tuple[str, dict[str, Any]]] = []
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(
                command_threads, "group_send", lambda group, msg: sent.append((group, msg))
            )
            with django_capture_on_commit_callbacks(execute=True):
                event = action()
        return _received(sent, bob, table.scene.pk, event.seq)

    def roll(mode: str):
        return actions.roll(
            scene=table.scene, actor=table.alice, roll_kind="two_dice", mode=mode,
            character=mira, data=check, rng=random.Random(3),
        )  # fmt: skip

    (public,) = sent_by(lambda: roll("public"))
    assert f'id="party-{mira.pk}-r' in public and 'id="party"' not in public
    (hidden,) = sent_by(lambda: roll("gm"))
    assert f"party-{mira.pk}" not in hidden and "Mira" not in hidden
    hidden_seq = SceneEvent.objects.filter(scene=table.scene).latest("seq").seq
    (reveal,) = sent_by(lambda: actions.reveal(scene=table.scene, actor=table.gm, seq=hidden_seq))
    assert 'id="party"' in reveal and "1 / 5" in reveal  # 5, 3 after the first, 1 after this
