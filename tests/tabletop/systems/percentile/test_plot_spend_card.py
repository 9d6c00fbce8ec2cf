"""The plot point spend card in its cancel window (issue 15): a bar that shrinks from the
window's start to its end (the page's countdown tick drives it from the card's data), the seconds
left, and a prominent Cancel offered to the other players only."""

from __future__ import annotations

from datetime import datetime, timedelta
from html.parser import HTMLParser

import pytest

from tabletop.scenes import actions
from tabletop.scenes.audiences import FULL, Viewer
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.render import render_card
from tabletop.systems.percentile import plot_points
from tests.support.dice import Faces
from tests.tabletop.systems.percentile.tables import plot_point_table

pytestmark = pytest.mark.django_db


class Elements(HTMLParser):
    """Every start tag of a card, with its attributes, and the text of its buttons."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.buttons: list[tuple[dict[str, str], str]] = []
        self._button: dict[str, str] | None = None
        self._text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attributes = {name: value or "" for name, value in attrs}
        self.tags.append((tag, attributes))
        if tag == "button":
            self._button, self._text = attributes, []

    def handle_data(self, data):
        if self._button is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "button" and self._button is not None:
            self.buttons.append((self._button, "".join(self._text).strip()))
            self._button = None

    def find(self, tag: str, css_class: str = "") -> list[dict[str, str]]:
        return [
            attrs
            for name, attrs in self.tags
            if name == tag and (not css_class or css_class in attrs.get("class", "").split())
        ]


def card(event: SceneEvent, viewer: Viewer) -> Elements:
    event = SceneEvent.objects.select_related("scene__campaign", "character").get(pk=event.pk)
    return Elements(render_card(event, FULL, viewer, live=False))


def change_spend(table, ann):
    roll = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="percentile",
        character=ann,
        data={"skill": "Climb"},
        rng=Faces(12),
    )
    return plot_points.plot_spend(
        scene=table.scene,
        actor=table.alice,
        character=ann,
        use="change_roll",
        seq=roll.seq,
        new_value=90,
    )


def window_of(elements: Elements) -> tuple[datetime, datetime]:
    (countdown,) = elements.find("div", "countdown")
    return (
        datetime.fromisoformat(countdown["data-opens-at"]),
        datetime.fromisoformat(countdown["data-closes-at"]),
    )


def cancel_buttons(elements: Elements) -> list[tuple[dict[str, str], str]]:
    return [(attrs, text) for attrs, text in elements.buttons if text.startswith("Cancel it")]


def test_an_open_spend_shows_its_window_as_a_bar_and_a_prominent_cancel():
    table, ann, _ = plot_point_table()
    spend = change_spend(table, ann)
    seen = card(spend, Viewer(user_id=table.bob.pk, is_gm=False))

    opens, closes = window_of(seen)
    assert abs((opens - spend.created_at).total_seconds()) < 1  # opened when the spend was made
    assert closes == datetime.fromisoformat(spend.public["closes_at"])
    seconds = table.campaign.effective_ruleset()["plot_point_cancel_seconds"]
    assert abs((closes - opens).total_seconds() - seconds) < 1
    (bar,) = seen.find("progress", "countdown-bar")
    assert bar["aria-label"].startswith("Time left to cancel")
    assert seen.find("b", "seconds")  # the seconds left, filled in by the tick

    ((attrs, text),) = cancel_buttons(seen)
    assert text == "Cancel it: spend 1 plot point"
    assert "outline" not in attrs.get("class", "")  # a primary button, not an outline link
    (form,) = seen.find("form", "cancel-spend")
    assert form["data-not-for"] == str(table.alice.pk)  # the spender's page drops it


def test_the_cancel_says_what_it_buys():
    table, ann, _ = plot_point_table()
    spend = change_spend(table, ann)
    event = SceneEvent.objects.select_related("scene__campaign", "character").get(pk=spend.pk)
    html = render_card(event, FULL, Viewer(user_id=table.bob.pk, is_gm=False), live=False)
    seen = Elements(html)
    ((attrs, _),) = cancel_buttons(seen)
    described = attrs["aria-describedby"]
    (says,) = [a for a in seen.find("small", "spend-odds") if a.get("id") == described]
    text = " ".join(html.split())
    roll = spend.public["seq"]
    assert (
        f"What it buys: roll #{roll} stays as rolled instead of becoming 90; "
        "the 1 point alice spent is lost too." in text
    )
    assert says["id"] == f"cancel-buys-{spend.seq}"


def test_the_gm_sees_the_bar_but_no_cancel():
    table, ann, _ = plot_point_table()
    spend = change_spend(table, ann)
    seen = card(spend, Viewer(user_id=table.gm.pk, is_gm=True))
    assert seen.find("progress", "countdown-bar")
    assert cancel_buttons(seen) == []


def test_an_approved_narrative_use_counts_its_window_from_the_gms_approval():
    table, ann, _ = plot_point_table()
    clue = plot_points.plot_spend(scene=table.scene, actor=table.alice, character=ann, use="clue")
    # The GM took a while to decide: the window opened at the approval, not at the offer.
    SceneEvent.objects.filter(pk=clue.pk).update(created_at=clue.created_at - timedelta(minutes=3))
    decision = plot_points.plot_decide(
        scene=table.scene, actor=table.gm, seq=clue.seq, approve=True
    )
    clue.refresh_from_db()
    opens, closes = window_of(card(clue, Viewer(user_id=table.bob.pk, is_gm=False)))
    assert abs((opens - decision.created_at).total_seconds()) < 1
    assert (opens - clue.created_at).total_seconds() > 170
    assert abs((closes - opens).total_seconds() - 15) < 1


def test_a_spend_out_of_its_window_has_no_bar_nor_cancel():
    table, ann, ben = plot_point_table()
    spend = change_spend(table, ann)
    plot_points.plot_cancel(scene=table.scene, actor=table.bob, seq=spend.seq, character=ben)
    seen = card(spend, Viewer(user_id=table.bob.pk, is_gm=False))
    assert seen.find("div", "countdown") == [] and seen.find("progress") == []
    assert cancel_buttons(seen) == []
