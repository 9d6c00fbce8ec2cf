"""Operation challenges live (annulus): setup with one commitment, adjustments and jams, reveals,
toolkit, the end that publishes the layout. Actions first (scripted dice), then the sockets with
every frame a player receives scanned for hidden dice, then the race on PostgreSQL."""

from __future__ import annotations

import html
import re
import threading
from html.parser import HTMLParser

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.test import Client
from django.urls import reverse

from rules.annulus import Challenge
from tabletop.scenes.commitments import canonical_json, commitment_for, verify
from tabletop.scenes.models import Audience, Scene, SceneEvent
from tabletop.systems.annulus import actions as challenges
from tabletop.systems.annulus.actions import STATE_KEY
from tests.support.dice import Always, Faces, script_dice
from tests.support.tables import make_table
from tests.tabletop.conftest import requires_postgres
from tests.tabletop.scenes.conftest import connect, seat_table
from tests.tabletop.systems.annulus.tables import annulus_table

PASS = (6, 6, 1, 1)  # two successes on the four-die op check: passes "easy" (needs 2)
FAIL = (1, 1, 1, 1)
PASS_3 = (6, 6, 1)  # the three-die toolkit check
FAIL_3 = (1, 1, 1)


def set_up(table, mask, dice, *, difficulty="easy", types=("Finesse",)):
    """A challenge with a scripted secret mask (a 1 hides its position) and d12s."""
    assert len(mask) == len(dice)
    return challenges.challenge_setup(
        scene=table.scene,
        actor=table.gm,
        difficulty=difficulty,
        types=list(types),
        length=len(mask),
        rng=Faces(*mask, *dice),
    )


def current(table) -> Challenge:
    table.scene.refresh_from_db()
    return Challenge.from_dict(table.scene.state[STATE_KEY]["challenge"])


def state(table) -> dict:
    table.scene.refresh_from_db()
    return table.scene.state[STATE_KEY]


def adjust(table, user, die, direction, *faces, character=None, **seen):
    return challenges.challenge_adjust(
        scene=table.scene,
        actor=user,
        die=die,
        direction=direction,
        character=character,
        rng=Faces(*faces),
        **seen,
    )


# --- setup ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_setup_commits_once_to_the_whole_layout():
    table, _, _ = annulus_table()
    event = set_up(table, (2, 1, 3, 4), (5, 9, 7, 3), difficulty="Medium", types=("finesse",))
    layout = {"mask": [2, 1, 3, 4], "hidden": [1], "values": [5, 9, 7, 3]}
    assert event.kind == "challenge_set" and event.audience == Audience.PRIVATE
    assert event.secret == layout
    assert event.commitment == commitment_for(layout, event.nonce)
    # The public part names the visible dice only: no length, no position, no hidden count.
    assert event.public["dice"] == [5, 7, 3]
    assert set(event.public) == {
        "number",
        "difficulty",
        "needed",
        "types",
        "dice",
    }
    assert event.public["difficulty"] == "medium" and event.public["needed"] == 3
    challenge = current(table)
    assert challenge.values == (5, 9, 7, 3) and challenge.hidden == (1,)
    assert state(table)["setup_seq"] == event.seq


@pytest.mark.django_db
def test_setup_refusals():
    table, _, _ = annulus_table()
    with pytest.raises(PermissionDenied, match="Only the GM"):
        challenges.challenge_setup(
            scene=table.scene, actor=table.alice, difficulty="easy", types=["Force"]
        )
    with pytest.raises(ValidationError, match="Unknown difficulty"):
        challenges.challenge_setup(
            scene=table.scene, actor=table.gm, difficulty="trivial", types=["Force"]
        )
    with pytest.raises(ValidationError, match="at most 12"):
        challenges.challenge_setup(
            scene=table.scene, actor=table.gm, difficulty="easy", types=["Force"], length=13
        )
    assert not SceneEvent.objects.filter(kind="challenge_set").exists()
    set_up(table, (2, 2), (5, 9))
    with pytest.raises(ValidationError, match="already under way"):
        set_up(table, (2, 2), (5, 9))
    assert SceneEvent.objects.filter(kind="challenge_set").count() == 1


@pytest.mark.django_db
def test_operation_challenges_are_annulus_only():
    table = make_table(system="conductor")
    with pytest.raises(ValidationError, match="(?i)annulus"):
        set_up(table, (2,), (5,))


# --- adjustments and jams -------------------------------------------------------------------


@pytest.mark.django_db
def test_an_adjustment_rolls_the_op_check_with_training_dice_and_moves_the_die():
    table, mira, _ = annulus_table()
    set_up(table, (2, 1, 3, 4), (5, 9, 7, 3), types=("Finesse", "Force"))
    # Mira's Finesse 2 (the larger of her two matching perks): 4 + 2 dice.
    event = adjust(table, table.alice, 0, +1, 6, 1, 1, 1, 1, 6, character=mira, seen=5, in_view=3)
    check = event.public["check"]
    assert check["base_dice"] == 4 and check["perk_dice"] == 2 and len(check["dice"]) == 6
    assert check["passed"] and not event.public["jammed"]
    assert event.public["die"] == 1 and event.public["before"] == 5 and event.public["after"] == 6
    assert "position" not in event.public  # would place the hidden die for players
    assert current(table).values == (6, 9, 7, 3)


@pytest.mark.django_db
def test_a_failed_op_check_jams_the_die_and_a_jammed_die_refuses_adjustment():
    table, _, dorrin = annulus_table()
    set_up(table, (2, 1, 3, 4), (5, 9, 7, 3))
    event = adjust(table, table.bob, 1, -1, *FAIL, character=dorrin)
    assert event.public["jammed"] and event.public["after"] == 7
    assert event.public["outcome"] == "failure"
    challenge = current(table)
    assert challenge.jammed == (2,) and challenge.values == (5, 9, 7, 3)  # die 2 is position 2
    with pytest.raises(ValidationError, match="jammed"):
        adjust(table, table.alice, 1, +1)  # refused before any die is rolled (no faces given)
    assert SceneEvent.objects.filter(kind="challenge_adjust").count() == 1


@pytest.mark.django_db
def test_a_click_on_a_die_that_changed_meanwhile_is_refused():
    table, _, _ = annulus_table()
    set_up(table, (2, 2, 3), (5, 9, 7))
    adjust(table, table.alice, 1, -1, *PASS, seen=9, in_view=3)
    # Bob saw the 9 too and clicked at the same moment: his command comes second.
    with pytest.raises(ValidationError, match="changed while you chose: it shows 8 now, not 9"):
        adjust(table, table.bob, 1, -1, *PASS, seen=9, in_view=3)
    assert current(table).values == (5, 8, 7)
    with pytest.raises(ValidationError, match="There is no die 4"):
        adjust(table, table.bob, 3, -1, in_view=3)
    with pytest.raises(ValidationError, match="Move the die up"):
        adjust(table, table.bob, 0, 2)
    assert SceneEvent.objects.filter(kind="challenge_adjust").count() == 1


@pytest.mark.django_db
def test_a_reveal_shifts_the_dice_so_commands_aimed_before_it_are_refused():
    table, _, _ = annulus_table()
    set_up(table, (1, 2, 3), (9, 5, 6))  # position 0 hidden; in view: 5, 6 (solved)
    challenges.challenge_reveal(scene=table.scene, actor=table.gm, position=0)
    with pytest.raises(ValidationError, match="hidden die joined"):
        adjust(table, table.alice, 0, +1, seen=5, in_view=2)


@pytest.mark.django_db
def test_an_outsider_cannot_touch_the_chain_nor_use_someone_elses_character():
    table, mira, _ = annulus_table()
    set_up(table, (2, 2), (5, 9))
    with pytest.raises(PermissionDenied):
        adjust(table, table.outsider, 0, +1)
    with pytest.raises(PermissionDenied, match="own characters"):
        adjust(table, table.bob, 0, +1, character=mira)
    assert SceneEvent.objects.filter(kind="challenge_adjust").count() == 0


# --- reveal, success, failure ----------------------------------------------------------------


@pytest.mark.django_db
def test_reveal_is_refused_while_the_visible_chain_is_unsolved_and_is_the_gms():
    table, _, _ = annulus_table()
    set_up(table, (2, 1, 3, 4), (5, 9, 7, 3))  # in view 5, 7, 3
    with pytest.raises(ValidationError, match="only once the visible dice are solved"):
        challenges.challenge_reveal(scene=table.scene, actor=table.gm, position=1)
    with pytest.raises(PermissionDenied):
        challenges.challenge_reveal(scene=table.scene, actor=table.alice, position=1)
    with pytest.raises(ValidationError, match="not hidden"):
        challenges.challenge_reveal(scene=table.scene, actor=table.gm, position=0)
    assert current(table).hidden == (1,)


@pytest.mark.django_db
def test_reveal_inserts_the_die_and_a_whole_solved_chain_succeeds():
    table, _, _ = annulus_table()
    setup = set_up(table, (2, 1, 3), (5, 9, 4))  # in view 5, 4 (solved); hidden 9 between
    assert current(table).can_reveal
    reveal = challenges.challenge_reveal(scene=table.scene, actor=table.gm, position=1)
    assert reveal.public == {
        "visible_index": 1,
        "value": 9,
        "die": 2,
        "in_view": 3,
    }
    assert current(table).visible_values() == (5, 9, 4)
    assert not SceneEvent.objects.filter(kind="challenge_end").exists()
    for _ in range(4):
        adjust(table, table.alice, 1, -1, *PASS)  # the revealed 9 down to 5
    assert current(table).values == (5, 5, 4) and state(table)["ended"] is None
    adjust(table, table.alice, 0, +1, *PASS)  # 6, 5, 4: solved, nothing hidden
    end = SceneEvent.objects.get(kind="challenge_end")
    assert end.public["ended"] == "solved" and end.public["outcome"] == "success"
    assert state(table)["ended"] == "solved"
    setup.refresh_from_db()
    assert setup.revealed_at is not None and end.parent_id == setup.pk
    assert verify(end.public["layout_text"], end.public["nonce"], setup.commitment)
    assert end.public["layout"] == {"mask": [2, 1, 3], "hidden": [1], "values": [5, 9, 4]}
    with pytest.raises(ValidationError, match="No operation challenge"):
        adjust(table, table.alice, 0, +1, *PASS)


@pytest.mark.django_db
def test_solved_with_nothing_hidden_succeeds_at_once():
    table, _, _ = annulus_table()
    set_up(table, (2, 3, 4), (5, 6, 8))
    adjust(table, table.alice, 2, -1, *PASS)
    assert state(table)["ended"] == "solved"


@pytest.mark.django_db
def test_a_chain_solved_as_rolled_is_over_at_once():
    table, _, _ = annulus_table()
    setup = set_up(table, (4,), (7,))  # seed: "only one die ... automatically considered solved"
    end = SceneEvent.objects.get(kind="challenge_end")
    assert end.public["ended"] == "solved" and end.parent_id == setup.pk
    assert state(table)["ended"] == "solved"
    set_up(table, (4, 4), (7, 9))  # and the next one may follow
    assert state(table)["ended"] is None


@pytest.mark.django_db
def test_jams_across_a_hidden_die_wait_for_the_reveal_then_fail():
    table, _, _ = annulus_table()
    set_up(table, (2, 1, 2), (4, 9, 5))  # players see 4, 5: solved to them
    adjust(table, table.alice, 0, +1, *FAIL)  # 4 jams
    assert state(table)["ended"] is None
    adjust(table, table.alice, 1, -1, *FAIL)  # 5 jams: solved in view, a hidden die left
    # Not "failed" yet: that would tell the players a hidden die sits between them.
    assert state(table)["ended"] is None and current(table).can_reveal
    assert not SceneEvent.objects.filter(kind="challenge_end").exists()
    challenges.challenge_reveal(scene=table.scene, actor=table.gm, position=1)
    # In view now 4 9 5 with 4 and 5 jammed: an odd gap, never solvable.
    end = SceneEvent.objects.get(kind="challenge_end")
    assert end.public["ended"] == "failed" and end.public["outcome"] == "failure"
    assert end.public["still_hidden"] == [] and end.public["jammed"] == [0, 2]
    assert state(table)["ended"] == "failed"


@pytest.mark.django_db
def test_jams_the_players_cannot_solve_fail_though_a_hidden_die_would_bridge_them():
    table, _, _ = annulus_table()
    set_up(table, (2, 1, 2), (4, 9, 6))  # players see 4, 6: a hidden 5 would bridge them
    adjust(table, table.alice, 0, +1, *FAIL)
    assert state(table)["ended"] is None
    adjust(table, table.alice, 1, -1, *FAIL)
    # Before the fix this hung "in progress" forever: no reveal can come for an unsolved chain.
    end = SceneEvent.objects.get(kind="challenge_end")
    assert end.public["ended"] == "failed" and end.public["still_hidden"] == [1]
    assert state(table)["ended"] == "failed"


@pytest.mark.django_db
def test_adjacent_visible_jams_too_far_apart_fail():
    table, _, _ = annulus_table()
    set_up(table, (2, 2, 2), (4, 7, 1))
    adjust(table, table.bob, 0, +1, *FAIL)
    adjust(table, table.bob, 1, -1, *FAIL)
    assert state(table)["ended"] == "failed"


# --- toolkit and calling off -------------------------------------------------------------------


@pytest.mark.django_db
def test_a_failed_toolkit_check_greys_the_ability_out_for_this_challenge():
    table, mira, _ = annulus_table()
    set_up(table, (2, 2, 2), (4, 9, 1))
    failed = challenges.challenge_toolkit(
        scene=table.scene,
        actor=table.alice,
        ability="calibrate",
        die=1,
        value=5,
        rng=Faces(*FAIL_3),
    )
    assert failed.public["now_unavailable"] and not failed.public["applied"]
    assert current(table).unavailable_abilities == ("Calibrate",)
    assert current(table).values == (4, 9, 1)  # "otherwise unaffected"
    with pytest.raises(ValidationError, match="failed earlier"):
        challenges.challenge_toolkit(
            scene=table.scene, actor=table.bob, ability="Calibrate", die=1, value=5
        )
    # Another ability still works: Shake Loose rerolls die 3 with Mira's training (+2 Finesse).
    used = challenges.challenge_toolkit(
        scene=table.scene,
        actor=table.alice,
        character=mira,
        ability="Shake Loose",
        die=2,
        seen=1,
        rng=Faces(6, 6, 1, 1, 1, 3),
    )
    assert used.public["applied"] and used.public["after"] == 3
    assert used.public["check"]["perk_dice"] == 2
    assert current(table).values == (4, 9, 3)


@pytest.mark.django_db
def test_free_the_jam_and_survey():
    table, _, _ = annulus_table()
    set_up(table, (2, 1, 2, 2), (4, 11, 8, 1))  # in view 4, 8, 1
    adjust(table, table.alice, 0, +1, *FAIL)
    challenges.challenge_toolkit(
        scene=table.scene, actor=table.alice, ability="Free the Jam", die=0, rng=Faces(*PASS_3)
    )
    assert current(table).jammed == ()
    survey = challenges.challenge_toolkit(
        scene=table.scene, actor=table.bob, ability="Survey", rng=Faces(*PASS_3)
    )
    assert survey.public["applied"] and survey.public["die"] == 2 and survey.public["after"] == 11
    assert "position" not in survey.public
    assert current(table).hidden == ()
    with pytest.raises(ValidationError, match="Pick the die"):
        challenges.challenge_toolkit(
            scene=table.scene, actor=table.bob, ability="Calibrate", value=3
        )
    with pytest.raises(ValidationError, match="Unknown toolkit ability"):
        challenges.challenge_toolkit(scene=table.scene, actor=table.bob, ability="Dynamite")


@pytest.mark.django_db
def test_the_gm_calls_a_challenge_off_and_the_layout_is_published():
    table, _, _ = annulus_table()
    setup = set_up(table, (1, 2), (3, 8))
    with pytest.raises(PermissionDenied):
        challenges.challenge_call_off(scene=table.scene, actor=table.alice)
    end = challenges.challenge_call_off(scene=table.scene, actor=table.gm)
    assert end.public["ended"] == "called_off" and end.public["still_hidden"] == [0]
    assert verify(canonical_json(setup.secret), end.public["nonce"], setup.commitment)
    # A new challenge may now be set up; it gets the next number and its own commitment.
    again = set_up(table, (2, 2), (3, 4))
    assert again.public["number"] == 2 and again.commitment != setup.commitment


# --- what each browser receives ----------------------------------------------------------------


class _Scan(HTMLParser):
    """Collects what a player's HTML shows of the chain."""

    def __init__(self) -> None:
        super().__init__()
        self.die_labels: list[str] = []
        self.inputs: list[dict[str, str]] = []
        self.data_attributes: set[str] = set()
        self.classes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attrs_d = {k: v or "" for k, v in attrs}
        self.data_attributes |= {k for k in attrs_d if k.startswith("data-")}
        self.classes |= set(attrs_d.get("class", "").split())
        if "die-face" in attrs_d.get("class", "").split():
            self.die_labels.append(attrs_d.get("aria-label", ""))
        if tag == "input":
            self.inputs.append(attrs_d)


def scan(text: str) -> _Scan:
    parser = _Scan()
    parser.feed(text)
    return parser


def assert_player_sees_only(text: str, visible: tuple[int, ...], secrets: list[str]) -> None:
    """A player's frame or page before the end: no secret text, and the chain (where shown) is
    exactly the visible dice, in order, with nothing that could place a hidden die."""
    for secret in secrets:
        assert secret not in text and html.escape(secret) not in text
    for attribute in ("data-secret", "data-nonce", "hidden-die", 'name="position"', "position "):
        assert attribute not in text, attribute
    found = scan(text)
    assert not found.data_attributes & {"data-secret", "data-nonce", "data-position"}
    if 'id="procedure-challenge"' in text:
        n = len(visible)
        expected = [f"die {k + 1} of {n}: {v}" for k, v in enumerate(visible)]
        assert [label.split(",")[0] for label in found.die_labels] == expected
        for field in found.inputs:
            name, value = field.get("name"), field.get("value")
            if name == "in_view":
                assert value == str(n)
            if name == "die":
                assert 0 <= int(value) < n
            if name == "seen":
                assert int(value) in visible


def challenge_secrets(setup: SceneEvent) -> list[str]:
    return [setup.nonce, canonical_json(setup.secret)]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_a_whole_challenge_over_the_sockets_leaks_nothing_to_players(monkeypatch):
    table, mira, dorrin = await sync_to_async(annulus_table)()
    dice = Faces()
    script_dice(monkeypatch, dice)
    gm, alice, bob = await seat_table(table)
    page = Client()
    await sync_to_async(page.force_login)(table.alice)
    url = reverse("scenes:detail", args=[table.scene.pk])

    async def step(sender, visible, faces=(), **command):
        """Send one command, collect every socket's frames, check the players' ones."""
        dice.faces = list(faces)
        alice.frames.clear()
        bob.frames.clear()
        await sender.send(**command)
        for sock in (gm, alice, bob):
            await sock.drain(timeout=1.0)
        assert dice.faces == [], "every scripted die was rolled"
        for sock in (alice, bob):
            assert 'id="procedure-challenge"' in sock.everything()
            if visible is not None:
                for frame in sock.frames:
                    assert_player_sees_only(frame, visible, secrets)
                response = await sync_to_async(page.get)(url)
                assert_player_sees_only(response.content.decode(), visible, secrets)

    # Position 2 hides an 11: the chain is 5 [11] 7 6, players see 5 7 6.
    dice.faces = [3, 1, 5, 2, 5, 11, 7, 6]
    await gm.send(
        command="challenge_setup", difficulty="easy", type_1="Finesse", type_2="", length="4"
    )
    for sock in (gm, alice, bob):
        await sock.drain(timeout=1.0)
    setup = await sync_to_async(SceneEvent.objects.get)(kind="challenge_set")
    secrets = challenge_secrets(setup)
    assert all('id="procedure-challenge"' in sock.everything() for sock in (alice, bob))
    for frame in alice.frames + bob.frames:
        assert_player_sees_only(frame, (5, 7, 6), secrets)
    assert setup.commitment in alice.everything()  # the one commitment, sealed
    # The GM's copy has the hidden die in place (so the scan above would catch a leak).
    assert "position 2 of 4: 11, hidden" in gm.everything()
    assert "die 1 of 3: 5" in alice.everything()

    # Alice (Mira, Finesse +2) moves die 1 up: 6 7 6 in view, solved for the players.
    await step(
        alice,
        (6, 7, 6),
        (6, 6, 1, 1, 1, 1),
        command="challenge_adjust",
        die="0",
        direction="1",
        seen="5",
        in_view="3",
        character=str(mira.pk),
    )
    # Bob jams die 3 (harmless here).
    await step(
        bob,
        (6, 7, 6),
        FAIL,
        command="challenge_adjust",
        die="2",
        direction="-1",
        seen="6",
        in_view="3",
        character=str(dorrin.pk),
    )
    assert "jammed" in alice.everything() and "die 3 of 3: 6, jammed" in alice.everything()
    # Bob clicks the jammed die anyway: a clear error, nothing rolled.
    await bob.send(command="challenge_adjust", die="2", direction="1", seen="6", in_view="3")
    await bob.drain(timeout=1.0)
    assert "jammed and cannot be manipulated" in bob.frames[-1]
    # A player who (re)connects now replays the whole log: still nothing hidden.
    late = await connect(table.bob, table.scene)
    await late.drain(timeout=1.0)
    assert 'id="procedure-challenge"' in late.everything()
    for frame in late.frames:
        assert_player_sees_only(frame, (6, 7, 6), secrets)
    await late.close()
    # The GM is prompted to reveal and reveals position 2: it slides in as die 2 of 4.
    assert "Reveal position 2 (11)" in gm.everything()
    await step(gm, (6, 11, 7, 6), command="challenge_reveal", position="1")
    assert "die 2 of 4: 11" in alice.everything() and "just-revealed" in alice.everything()
    # Toolkit: Calibrate sets the revealed 11 to 6: 6 6 7 6.
    await step(
        alice,
        (6, 6, 7, 6),
        PASS_3,
        command="challenge_toolkit",
        ability="Calibrate",
        die="1",
        value="6",
        in_view="4",
    )
    assert "die 2 of 4: 6" in bob.everything()
    # Die 1 down to 5: 5 6 7 6 is solved with nothing hidden, the challenge succeeds.
    await step(
        alice,
        None,
        PASS,
        command="challenge_adjust",
        die="0",
        direction="-1",
        seen="6",
        in_view="4",
    )
    end = await sync_to_async(SceneEvent.objects.get)(kind="challenge_end")
    assert end.public["ended"] == "solved"
    # The end publishes layout and nonce to everyone, in the markup scene.js verifies.
    for sock in (gm, alice, bob):
        text = sock.everything()
        assert f'data-nonce="{setup.nonce}"' in text
        assert f'data-commitment="{setup.commitment}"' in text
        secret_text = re.search(r'data-secret="([^"]+)"', text).group(1)
        assert verify(html.unescape(secret_text), setup.nonce, setup.commitment)
    assert "Success" in alice.everything()
    for sock in (gm, alice, bob):
        await sock.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_a_stale_click_over_the_socket_gets_a_clear_error(monkeypatch):
    table, _, _ = await sync_to_async(annulus_table)()
    await sync_to_async(set_up)(table, (2, 2, 2), (5, 9, 7))
    script_dice(monkeypatch, Always())
    gm, alice, bob = await seat_table(table)
    command = {"command": "challenge_adjust", "die": "1", "direction": "-1", "seen": "9"}
    await alice.send(**command, in_view="3")
    await bob.send(**command, in_view="3")
    for sock in (gm, alice, bob):
        await sock.drain(timeout=1.0)
    # One of them was first; the other is told, and nothing moved twice.
    told = [s for s in (alice, bob) if "changed while you chose" in s.everything()]
    assert len(told) == 1
    assert await sync_to_async(lambda: current(table).values)() == (5, 8, 7)
    for sock in (gm, alice, bob):
        await sock.close()


# --- the race, on PostgreSQL -----------------------------------------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
@requires_postgres
def test_two_simultaneous_adjustments_of_one_die_one_wins_on_postgres():
    assert connection.vendor == "postgresql"
    table, _, _ = annulus_table()
    set_up(table, (2, 2, 2), (5, 9, 7))
    count = 2
    start = threading.Barrier(count)
    done: list[SceneEvent] = []
    errors: list[BaseException] = []

    def click(user):
        try:
            start.wait()
            scene = Scene.objects.select_related("campaign").get(pk=table.scene.pk)
            done.append(
                challenges.challenge_adjust(
                    scene=scene,
                    actor=user,
                    die=1,
                    direction=-1,
                    seen=9,
                    in_view=3,
                    rng=Always(),
                )
            )
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=click, args=(u,)) for u in (table.alice, table.bob)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(done) == 1 and len(errors) == 1, errors
    assert isinstance(errors[0], ValidationError)
    assert "changed while you chose: it shows 8 now, not 9" in str(errors[0])
    assert current(table).values == (5, 8, 7)  # moved once, not twice
    assert SceneEvent.objects.filter(kind="challenge_adjust").count() == 1
