"""Roll cards a player reads at a glance: dice drawn per type and marked (kept, dropped,
exploded, raised by a benny) in shape and words, the outcome badge, who rolled, when and #seq,
and the odds the roller had, stored with the roll (and secret with a hidden one)."""

from __future__ import annotations

import datetime as dt
import random
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.template import Context, Template
from django.utils import timezone

from tabletop.characters.models import Character
from tabletop.scenes import actions
from tabletop.scenes.audiences import FULL, Viewer, visibility
from tabletop.scenes.models import Audience, SceneEvent
from tabletop.scenes.render import render_card
from tabletop.scenes.rollkinds import ROLL_KINDS, RollOutcome, percent
from tabletop.scenes.templatetags.dice import OUTLINES, die_view
from tests.support.dice import Faces
from tests.support.tables import make_table
from tests.tabletop.systems.roll_forms import ROLL_FORM_INPUTS

# --- one die ---------------------------------------------------------------------------------


def die(d: Any = None, **options: Any) -> dict[str, Any]:
    return die_view(d, **options)


def rolled(face: int, sides: int = 6, **fields: Any) -> dict[str, Any]:
    """A die as ``rules.core.Die.to_dict()`` stores it."""
    return {
        "sides": sides,
        "rolled": face,
        "value": face,
        "kept": True,
        "exploded": False,
        "bonus": 0,
        "source": None,
        **fields,
    }


def test_a_kept_and_a_dropped_die_look_and_read_differently():
    kept, dropped = die(rolled(5), keeps=True), die(rolled(2, kept=False), keeps=True)
    assert kept["label"] == "5, kept" and "kept" in kept["classes"].split()
    assert dropped["label"] == "2, dropped" and "dropped" in dropped["classes"].split()
    assert "kept" not in dropped["classes"].split()


def test_kept_is_only_said_when_the_roll_dropped_something():
    assert die(rolled(5))["label"] == "5"
    assert die(rolled(5))["caption"] == ""


def test_exploded_benny_raised_and_explosion_dice_are_marked():
    exploded = die(rolled(6, exploded=True), mark="hit", tone="good")
    assert exploded["label"] == "6, hit, exploded"
    assert {"exploded", "tone-good"} <= set(exploded["classes"].split())
    # Raised after the roll: in every system's words "+N"; conductor's say it was bennies.
    raised = die(rolled(4, value=5, bonus=1))
    assert raised["label"] == "5, rolled 4 +1" and "raised" in raised["classes"].split()
    benny = die(rolled(4, value=5, bonus=1), reading="conductor")
    assert benny["label"] == "5, rolled 4 +1 benny" and "benny" in benny["classes"].split()
    assert "raised" not in benny["classes"].split()
    both = die(rolled(4, value=6, bonus=2, exploded=True), mark="hit", reading="conductor")
    assert both["label"] == "6, hit, exploded, rolled 4 +2 bennies"
    extra = die(rolled(3, source=0), mark="miss", tone="bad")
    assert extra["label"] == "3, miss, from die 1" and "extra" in extra["classes"].split()


def test_the_label_is_what_the_die_shows():
    for d in (rolled(6, exploded=True), rolled(2, kept=False), rolled(4, value=5, bonus=1)):
        view = die(d, keeps=True)
        [face] = view["faces"]
        assert view["label"] == f"{face['text']}, {view['caption']}"


def test_each_die_type_has_its_own_drawing():
    drawings = {sides: die(rolled(1, sides))["faces"][0]["outline"] for sides in OUTLINES}
    assert len(set(drawings.values())) == len(OUTLINES) == 6  # d4 d6 d8 d10 d12 d20
    assert die(rolled(3, 3))["faces"][0]["outline"] == ""  # drawn round
    assert die(rolled(3, 3))["classes"].split()[:2] == ["die", "die-round"]


@pytest.mark.parametrize(
    ("face", "tens", "units"), [(31, "30", "1"), (7, "00", "7"), (100, "00", "0"), (90, "90", "0")]
)
def test_a_d100_is_a_pair_of_tens_and_units(face, tens, units):
    view = die({"face": face, "sign": 1, "exploded": False, "chosen": False}, reading="percentile")
    assert [f["text"] for f in view["faces"]] == [tens, units]
    assert view["label"] == view["caption"] == str(face)  # the pair's reading is written out
    assert [f["text"] for f in die(rolled(face, 100))["faces"]] == [tens, units]  # dice box d%


def test_a_percentile_die_that_rolls_again_or_is_subtracted_says_so():
    def d100(**stored):
        return die({"sign": 1, "exploded": False, "chosen": False, **stored}, reading="percentile")

    up = d100(face=97, exploded=True)
    assert up["label"] == "97, rolls again" and "exploded" in up["classes"].split()
    down = d100(face=40, sign=-1)
    assert down["label"] == "40, subtracted" and "subtracted" in down["classes"].split()
    chosen = d100(face=60, chosen=True)
    assert chosen["label"] == "60, chosen with plot points"
    # The generic tag knows none of those words: a d100 read without its system is a bare die.
    assert die({"face": 97, "exploded": True})["label"] == "?, exploded"
    assert die({"face": 60}, reading="no such system")["label"] == "?"


@pytest.mark.parametrize(
    "bad", [None, "6", 6, [], {}, {"value": "x"}, {"value": True, "sides": "six"}, {"face": None}]
)
def test_a_die_stored_oddly_shows_a_question_mark(bad):
    for reading in ("", "percentile", "conductor"):
        view = die(bad, reading=reading)
        assert view["label"].startswith("?")
    assert view["faces"][0]["text"] == "?"


class _Dice(HTMLParser):
    """Each drawn die's aria-label and the text a sighted reader sees in it."""

    def __init__(self) -> None:
        super().__init__()
        self.dice: list[tuple[str, list[str]]] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if self._depth:
            self._depth += 1
        elif tag == "span" and "die" in (a.get("class") or "").split():
            self._depth = 1
            self.dice.append((a.get("aria-label") or "", []))

    def handle_endtag(self, tag: str) -> None:
        if self._depth:
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._depth and data.strip():
            self.dice[-1][1].append(data.strip())


def drawn(html: str) -> list[tuple[str, list[str]]]:
    parser = _Dice()
    parser.feed(html)
    return parser.dice


def test_the_die_tag_draws_an_svg_with_the_visible_words_as_its_label():
    html = Template(
        "{% load dice %}{% die d keeps=True %}{% die p reading='percentile' %}"
        "{% die sides=12 value=7 %}"
    ).render(Context({"d": rolled(6, exploded=True), "p": {"face": 31, "sign": 1}}))
    assert html.count("<svg") == 4  # the d100 is two d10s
    assert 'style="' not in html and "<script" not in html  # the CSP allows neither
    assert drawn(html) == [
        ("6, kept, exploded", ["6", "kept, exploded"]),
        ("31", ["30", "1", "31"]),
        ("7", ["7"]),
    ]


def test_the_die_tag_escapes_every_word_it_draws():
    # Stored events are old data too: whatever a mark or a value holds, it stays text.
    html = Template("{% load dice %}{% die d mark=evil %}").render(
        Context({"d": {"value": 5, "sides": 6}, "evil": '"><script>alert(1)</script>'})
    )
    assert "<script" not in html and "&quot;&gt;&lt;script&gt;" in html
    assert drawn(html) == [('5, "><script>alert(1)</script>', ["5", '"><script>alert(1)</script>'])]


# --- cards -----------------------------------------------------------------------------------

#: Every roll kind with odds (the dice box has none), with a valid roll form input.
INPUTS = {kind: given for kind, given in ROLL_FORM_INPUTS.items() if kind != "expression"}


def _roll(kind: str, *, mode: str = "public", seed: int = 1, actor: str = "alice"):
    system, data = INPUTS.get(kind, ("conductor", {"expression": "4d6k3"}))
    table = make_table(system=system)
    character = None
    data = dict(data)
    if kind.startswith("conductor_"):
        character = Character.objects.create(
            campaign=table.campaign,
            owner=table.alice,
            name="Mira",
            skills=[{"name": "Acrobatics", "value": 1, "specialisation": ""}],
        )
        if kind == "conductor_heal":
            data["patient"] = str(character.pk)
    event = actions.roll(
        scene=table.scene,
        actor=getattr(table, actor),
        roll_kind=kind,
        mode=mode,
        character=character,
        data=data,
        rng=random.Random(seed),
    )
    return table, character, data, event


def card(table, event: SceneEvent, user, *, live: bool = False) -> str:
    event = SceneEvent.objects.select_related("scene__campaign", "character").get(pk=event.pk)
    viewer = Viewer(user.pk, user.pk == table.gm.pk)
    return render_card(event, visibility(event, viewer), viewer, live=live)


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


@pytest.mark.django_db
@pytest.mark.parametrize("kind", sorted(INPUTS))
def test_the_odds_stored_with_a_roll_are_its_kinds_odds_before_the_roll(kind):
    table, character, data, event = _roll(kind)
    ruleset = table.campaign.effective_ruleset()
    odds = ROLL_KINDS[kind].odds(data=data, character=character, ruleset=ruleset)
    stored = event.public["odds"]
    assert stored == {
        "percent": percent(odds["chance"]),
        "value": f"{float(odds['chance']):.4f}",
        "goal": odds["goal"],
        # the dice statistics' bands (tests/tabletop/stats/test_recorded_bands.py)
        "bands": [[key, str(p)] for key, p in odds["bands"] if p],
        "band": stored["band"],
    }
    assert stored["band"] in dict(stored["bands"])
    assert event.secret == {}
    page = text_of(card(table, event, table.bob))
    assert f"Before the roll: {stored['percent']} {stored['goal']}" in page


@pytest.mark.django_db
def test_the_dice_box_has_no_single_goal_so_no_odds_line():
    table, _, _, event = _roll("expression")
    assert set(event.public["odds"]) == {"bands", "band"}  # its totals, for the statistics
    assert "Before the roll" not in card(table, event, table.bob)


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["gm", "blind", "secret"])
def test_a_hidden_rolls_odds_are_secret_and_its_stub_draws_nothing(mode):
    roller = "gm" if mode == "secret" else "alice"
    table, _, _, event = _roll("conductor_attack", mode=mode, actor=roller)
    assert "odds" in event.secret and "odds" not in event.public
    assert set(event.public) == {"roller", "mode"}
    stub = card(table, event, table.bob, live=True)
    for leaked in ("Before the roll", "%", "<svg", 'class="die', "outcome-badge", "outcome-"):
        assert leaked not in stub, leaked
    if mode == "secret":
        assert stub == ""  # a player never learns of the GM's secret roll
    else:  # the stub still says who rolled, when and where in the log
        assert f"#{event.seq}</a>" in stub and "<time datetime=" in stub
        assert f"<strong>{roller}</strong>" in stub
    gm_card = text_of(card(table, event, table.gm))
    assert f"Before the roll: {event.secret['odds']['percent']} to hit" in gm_card


@pytest.mark.django_db
def test_a_revealed_roll_shows_its_odds_to_everyone():
    table, _, _, event = _roll("conductor_standard", mode="gm")
    assert "Before the roll" not in card(table, event, table.bob)
    actions.reveal(scene=table.scene, actor=table.gm, seq=event.seq)
    assert "Before the roll" in card(table, event, table.bob)


@pytest.mark.django_db
def test_every_card_shows_its_seq_and_time_and_who_rolled_as_whom():
    table, _, _, event = _roll("conductor_standard")
    html = card(table, event, table.bob)
    assert f'<a class="event-seq" href="#event-{event.seq}">#{event.seq}</a>' in html
    stamp = re.search(r'<time datetime="([^"]+)"[^>]*>(\d\d:\d\d)</time>', html)
    assert stamp is not None and stamp.group(1).startswith(str(event.created_at.year))
    assert '<strong>alice</strong> as <span class="character">Mira</span>' in html


@pytest.mark.django_db
def test_a_cards_time_reads_as_djangos_date_filters_print_it_and_follows_the_event():
    table, _, _, event = _roll("conductor_standard")
    event = SceneEvent.objects.select_related("scene__campaign", "character").get(pk=event.pk)
    event.created_at = dt.datetime(2026, 3, 7, 21, 5, 9, 250, tzinfo=dt.UTC)
    filters = Template("{{ t|date:'c' }}|{{ t|date:'j M Y, H:i:s' }}|{{ t|time:'H:i' }}")

    def shown(user) -> str:  # the card of this very event object, as a broadcast renders it
        viewer = Viewer(user.pk, user.pk == table.gm.pk)
        return render_card(event, visibility(event, viewer), viewer, live=True)

    def printed(html: str) -> str:
        stamp = re.search(r'<time datetime="([^"]+)" title="([^"]+)">([^<]+)</time>', html)
        assert stamp is not None, html
        return "|".join(stamp.groups())

    assert printed(shown(table.bob)) == filters.render(Context({"t": event.created_at}))
    assert printed(shown(table.bob)).endswith("|7 Mar 2026, 21:05:09|21:05")
    # Another moment, and the site's zone as the filters use it.
    event.created_at = dt.datetime(2026, 3, 8, 1, 2, 3, tzinfo=dt.UTC)
    assert printed(shown(table.gm)) == filters.render(Context({"t": event.created_at}))
    with timezone.override("America/New_York"):
        local = printed(render_card(event, FULL, Viewer(table.gm.pk, True), live=False))
        assert local == filters.render(Context({"t": event.created_at}))
    assert local.endswith("|7 Mar 2026, 20:02:03|20:02")
    event.created_at = None
    assert "<time" not in shown(table.gm)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("outcome", "tone", "label"),
    [
        ("success", "good", "Success"),
        ("failure", "bad", "Failure"),
        ("botch", "dire", "Botch"),
        ("critical_success", "great", "Critical success"),
        ("partial_success", "partial", "Partial success"),
    ],
)
def test_the_outcome_is_a_badge_coloured_by_its_band(outcome, tone, label):
    table = make_table()
    event = actions.record_roll(
        scene=table.scene,
        actor=table.alice,
        character=None,
        roll_kind="expression",
        label="Dice",
        outcome=_outcome(outcome),
    )
    html = card(table, event, table.bob)
    assert f'<span class="outcome-badge tone-{tone}">{label}</span>' in html


def _outcome(outcome: str) -> RollOutcome:
    return RollOutcome(title="1d6", summary="4", detail={"terms": []}, outcome=outcome)


@pytest.mark.django_db
def test_the_systems_own_band_label_names_the_badge():
    table, _, _, event = _roll("two_dice")
    label = event.public["result"]["band_label"]
    assert f">{label}</span>" in card(table, event, table.bob)


@pytest.mark.django_db
def test_a_roll_stored_before_cards_had_odds_or_with_odd_data_still_renders():
    # Events recorded before odds were stored (and with keys missing or mistyped) must render:
    # cards read whatever old rows hold.
    table = make_table()
    old = [
        {"roll_kind": "conductor_attack", "label": "Attack roll", "summary": "2 hits"},
        {"roll_kind": "conductor_attack", "result": {"dice": [None, "6", {"value": "x"}]}},
        {"roll_kind": "roll_and_keep", "result": {"dice": "none"}, "odds": "41%"},
        {"roll_kind": "percentile", "result": {"roll": {"dice": [{"face": 200}]}, "row": None}},
        {"roll_kind": "annulus_check", "result": {"dice": [{"value": 5}], "base_dice": None}},
        {"roll_kind": "two_dice", "result": {"dice": [{"kept": False}]}, "odds": {"goal": 3}},
        {"roll_kind": "expression", "result": {"terms": [{"dice": [{}], "sign": "-"}]}},
        {"roll_kind": "percentile_running", "result": {}, "outcome": 7},
    ]
    for public in old:
        with_mode = {"roller": "alice", "mode": "public", **public}
        event = SceneEvent.objects.create(
            scene=table.scene,
            seq=SceneEvent.objects.filter(scene=table.scene).count() + 1,
            kind="roll",
            actor=table.alice,
            audience=Audience.EVERYONE,
            public=with_mode,
        )
        html = card(table, event, table.bob)
        assert f'id="event-{event.seq}"' in html
        assert "Before the roll" not in html


@pytest.mark.django_db
def test_a_dice_box_card_draws_kept_and_dropped_dice_differently():
    table = make_table()
    event = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="expression",
        data={"expression": "3d6k2 + 1d20 + 1d100"},
        rng=Faces(2, 5, 6, 17, 42),
    )
    dice = drawn(card(table, event, table.bob))
    assert [label for label, _ in dice] == ["2, dropped", "5, kept", "6, kept", "17", "42"]
    assert dice[-1][1] == ["40", "2", "42"]  # the d100 as tens and units
    html = card(table, event, table.bob)
    assert 'class="die die-d6 dropped"' in html and 'class="die die-d6 kept"' in html
    assert 'class="die die-d20"' in html and 'class="die die-d100"' in html


@pytest.mark.django_db
def test_a_dice_box_formula_strikes_dropped_dice_from_the_dice_not_the_markdown():
    # The stored breakdown is avrae/d20's plain text ("~~2~~" for a dropped die); the card's
    # formula is drawn from the dice themselves: a dropped die struck through, never "~~".
    table = make_table()
    event = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="expression",
        data={"expression": "3d6!kh2 * 2 - 1d4 + 3"},
        rng=Faces(6, 2, 1, 4, 3),
    )
    result = event.public["result"]
    assert result["breakdown"] == "3d6!kh2 (6!, ~~2~~, ~~1~~, 4) * 2 - 1d4 (3) + 3 = 20"
    html = card(table, event, table.bob)
    assert "~~" not in html
    (line,) = re.findall(r'<p class="dice-line"><code>(.*?)</code></p>', html, re.S)
    hidden = '<span class="visually-hidden"> dropped</span>'
    assert re.findall(r'<s class="dropped">(.*?)</s>', line) == [f"2{hidden}", f"1{hidden}"]
    assert line.replace(hidden, "") == (
        '3d6!kh2 (6!, <s class="dropped">2</s>, <s class="dropped">1</s>, 4) * 2 - 1d4 (3) + 3 = 20'
    )


@pytest.mark.django_db
def test_a_dice_box_formula_escapes_what_it_was_stored_with():
    table = make_table()
    odd = {"terms": [{"text": "<b>1d6</b>", "dice": [{"value": "<i>"}, None], "sign": 1}]}
    event = SceneEvent.objects.create(
        scene=table.scene,
        seq=SceneEvent.objects.filter(scene=table.scene).count() + 1,
        kind="roll",
        actor=table.alice,
        audience=Audience.EVERYONE,
        public={"roller": "alice", "mode": "public", "roll_kind": "expression", "result": odd},
    )
    html = card(table, event, table.bob)
    assert "&lt;b&gt;1d6&lt;/b&gt; (?, ?)" in html
    assert "<b>1d6" not in html and "<i>" not in html


@pytest.mark.django_db
def test_only_a_card_that_just_arrived_is_marked_live_for_its_animation():
    # The dice tumble and the badge pops on `.event.live` only (static/css/dice.css); a card
    # loaded with the page or replayed stays still.
    table, _, _, event = _roll("conductor_attack")
    assert 'class="event event-roll live' in card(table, event, table.bob, live=True)
    assert " live" not in card(table, event, table.bob, live=False).split(">", 1)[0]
