"""The dice language on the site (issue 36): the dice box's card draws the result tree (sets,
counted dice, rerolls, labels, the comment, a comparison's outcome), its odds give a comparison's
chance, and the dice reference page lists every construct with examples that roll."""

from __future__ import annotations

import html as html_lib
import re
from fractions import Fraction

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from rules.expression.reference import GROUPS, REFERENCE, examples
from tabletop.scenes import actions, dicebox
from tabletop.scenes.models import Audience, SceneEvent
from tests.support.dice import Faces
from tests.support.tables import make_table
from tests.tabletop.scenes.test_roll_cards import card

pytestmark = pytest.mark.django_db


def roll_card(expression: str, faces) -> tuple[dict, str]:
    table = make_table()
    event = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="expression",
        data={"expression": expression},
        rng=Faces(*faces),
    )
    return event.public, card(table, event, table.bob)


def text_of(html: str) -> str:
    return html_lib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))).strip()


def formula(html: str) -> str:
    (line,) = re.findall(r'<p class="dice-line"><code>(.*?)</code></p>', html, re.S)
    return line


def test_a_set_card_strikes_the_dropped_item_and_shows_each_kept_one():
    # Worked by hand: 4d6kh3 three times; the lowest total (3 + 2 + 1 = 6) is dropped.
    faces = (6, 5, 4, 1) + (3, 2, 1, 1) + (6, 6, 2, 2)
    public, html = roll_card("{4d6kh3, 4d6kh3, 4d6kh3}dl1", faces)
    assert public["result"]["total"] == 29 and public["summary"] == "29"
    assert html.count('class="set-item dropped"') == 1
    line = formula(html)
    assert re.findall(r'<s class="dropped">(\{?4d6kh3 \(.*?\))<span', line)[0].startswith(
        "4d6kh3 (3"
    )
    assert text_of(line).endswith("dl1 (29) = 29")


def test_a_success_pool_card_marks_each_die_it_counted():
    # 6 and 5 succeed (5 or more), the 1 takes one away: 1 success.
    public, html = roll_card("4d6>=5f1", (6, 1, 5, 3))
    assert public["summary"] == "1"
    labels = re.findall(r'role="img" aria-label="([^"]*)"', html)
    assert labels == ["6, success", "1, failure, −1", "5, success", "3, no success"]
    assert 'class="die die-d6 tone-good"' in html and 'class="die die-d6 tone-bad"' in html
    assert text_of(formula(html)) == "4d6cs>=5df1 (6✓ success, 1✗ failure, 5✓ success, 3) = 1"


def test_a_comparison_card_says_success_or_failure_and_the_odds_give_its_chance():
    public, html = roll_card("1d20+5 >= 15 # attack", (12,))
    assert public["outcome"] == "success" and public["summary"] == "Success (17 >= 15)"
    assert public["result"]["success"] is True and public["result"]["target"] == 15
    assert '<span class="compare-outcome tone-good">success</span>' in html
    assert '<p class="dice-comment">attack</p>' in html
    assert text_of(formula(html)) == "1d20 (12) + 5 = 17 >= 15: success"
    # 1d20 + 5 >= 15 needs a 10 or more: 11 faces in 20.
    odds = dicebox.odds(data={"expression": "1d20+5 >= 15"}, character=None, ruleset=None)
    assert odds["chance"] == Fraction(11, 20) and odds["goal"] == "to succeed"
    assert public["odds"]["percent"] == "55.0%"


def test_rerolls_labels_and_rolled_counts_are_on_the_card():
    # (1d2)d6r1: the count die shows 2; the first d6 shows 1, rerolled to 4; the second 6.
    public, html = roll_card("(1d2)d6r1 [fire] + 2", (2, 1, 4, 6))
    assert public["result"]["total"] == 12
    assert '<span class="dice-label">fire</span>' in html
    assert "4, rerolled 1" in html
    assert text_of(formula(html)) == "(1d2 (2))d6r1 (1 rerolled 4, 6) [fire] + 2 = 12"


def test_a_label_and_a_comment_are_escaped():
    public, html = roll_card("1d6 [<b>x</b>] # <script>", (3,))
    assert "<b>x</b>" not in html and "<script>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "&lt;script&gt;" in html


def test_an_old_card_without_a_tree_still_draws_its_terms():
    # Rolls stored before issue 36 have "terms" and no "root": the card reads them as before.
    table = make_table()
    old = {
        "expression": "2d6 + 1",
        "terms": [
            {"text": "2d6", "sign": 1, "multiplier": 1, "subtotal": 7,
             "dice": [{"sides": 6, "rolled": 3, "value": 3, "kept": True},
                      {"sides": 6, "rolled": 4, "value": 4, "kept": True}]},
            {"text": "1", "sign": 1, "multiplier": 1, "subtotal": 1, "dice": []},
        ],
        "total": 8,
        "breakdown": "2d6 (3, 4) + 1 = 8",
    }  # fmt: skip
    event = SceneEvent.objects.create(
        scene=table.scene,
        seq=SceneEvent.objects.filter(scene=table.scene).count() + 1,
        kind="roll",
        actor=table.alice,
        audience=Audience.EVERYONE,
        public={"roller": "alice", "mode": "public", "roll_kind": "expression", "result": old},
    )
    html = card(table, event, table.bob)
    assert text_of(formula(html)) == "2d6 (3, 4) + 1 = 8"
    assert html.count('class="die die-d6"') == 2


def test_a_refused_expression_says_where():
    table = make_table()
    with pytest.raises(ValidationError, match="position 6"):
        actions.roll(
            scene=table.scene,
            actor=table.alice,
            roll_kind="expression",
            data={"expression": "1d6r<6"},
            rng=Faces(1),
        )


# --- the dice reference page --------------------------------------------------------------------


def test_the_reference_page_lists_every_construct_and_example_for_anyone():
    response = Client().get(reverse("dice_reference"))
    assert response.status_code == 200
    page = html_lib.unescape(response.content.decode())
    for group in GROUPS:
        assert f">{group}</h2>" in page
    for entry in REFERENCE:
        assert f"<h3>{entry.construct}</h3>" in page
        for example in entry.examples:
            assert f"<code>{example}</code>" in page
    assert "<script>" not in response.content.decode().split("</head>")[1]  # no inline script


@pytest.mark.parametrize("example", examples()[::5])
def test_an_example_rolls_on_the_page_with_its_odds(example):
    response = Client().get(reverse("dice_reference_roll"), {"e": example})
    assert response.status_code == 200
    body = response.content.decode()
    assert 'class="event event-roll dice-demo-card"' in body
    assert "Exact odds" in body
    assert "odds-error" not in body


def test_a_comparison_example_shows_its_outcome_and_chance():
    body = Client().get(reverse("dice_reference_roll"), {"e": "1d20+5 >= 15"}).content.decode()
    assert re.search(r'class="outcome-badge tone-(good|bad)">(Success|Failure)<', body)
    assert "<b>55.0%</b> to succeed" in body


def test_only_members_try_their_own_expressions():
    anonymous = Client().get(reverse("dice_reference_roll"), {"e": "7d7"}).content.decode()
    assert "Log in to try expressions of your own" in anonymous
    table = make_table()
    member = Client()
    member.force_login(table.alice)
    body = member.get(reverse("dice_reference_roll"), {"e": "7d7"}).content.decode()
    assert "dice-demo-card" in body
    mistake = member.get(reverse("dice_reference_roll"), {"e": "1d20 advantag"}).content.decode()
    assert "position 6" in mistake and "did you mean &#x27;advantage&#x27;?" in mistake


def test_the_dice_box_form_links_the_reference_and_offers_its_examples():
    from django.template.loader import render_to_string

    form = render_to_string("scenes/dicebox/form.html")
    assert reverse("dice_reference") in form
    offered = re.findall(r'data-dice-example="([^"]*)"', form)
    firsts = {}
    for entry in REFERENCE:
        firsts.setdefault(entry.group, entry.examples[0])
    assert [html_lib.unescape(x) for x in offered] == list(firsts.values())
    assert len(offered) == len(GROUPS)
