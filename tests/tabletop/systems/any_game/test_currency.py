"""Any game's currency: its name is a campaign setting (bounded, escaped, a clear error), the GM
steps it (the generic awards, in the campaign's words), a player spends one of their own in the
log, never past zero (one conditional UPDATE, and the column's CHECK)."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from rules import any_game
from rules.core import RulesError
from tabletop import systems
from tabletop.campaigns.actions import ruleset_update
from tabletop.campaigns.models import Campaign
from tabletop.scenes import actions
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.render import render_card
from tabletop.scenes.tools import tools_context
from tabletop.systems.any_game.currency import currency_spend
from tabletop.systems.any_game.models import AnyGameSheet
from tests.tabletop.systems.any_game.tables import any_game_table, held

# --- the name: a campaign setting -------------------------------------------------------------


def test_the_currency_is_named_per_campaign_and_the_name_is_checked():
    assert any_game.validate_ruleset(None) == {"currency": "Inspiration"}
    words = any_game.currency_words
    assert words(any_game.validate_ruleset({})) == ("Inspiration", "inspiration", "inspiration")
    named = any_game.validate_ruleset({"currency": "  Hero   point/Hero points "})
    assert named == {"currency": "Hero point / Hero points"}
    assert words(named) == ("Hero points", "hero point", "hero points")
    assert words(any_game.validate_ruleset({"currency": "GM tokens"}))[2] == "GM tokens"
    for bad, says in [
        ("", "can't be blank"),
        ("x" * (any_game.NAME_MAX + 1), f"at most {any_game.NAME_MAX} characters"),
        ("Luck\u0000", "letters, numbers"),
        ("a / b / c", "one word, or one and many"),
        ("Hero point /", "one word, or one and many"),
        (7, "must be text"),
    ]:
        with pytest.raises(RulesError, match=says):
            any_game.validate_ruleset({"currency": bad})
    with pytest.raises(RulesError, match="no setting"):
        any_game.validate_ruleset({"bennies": 3})


@pytest.mark.django_db
def test_a_bad_name_is_refused_on_the_settings_page_in_its_words_and_changes_nothing(client):
    table, _ = any_game_table()
    ruleset_update(campaign=table.campaign, actor=table.gm, overrides={"currency": "Luck"})
    client.force_login(table.gm)
    url = reverse("campaigns:settings", args=[table.campaign.pk])
    page = client.get(url).content.decode()
    assert "The table&#x27;s currency" in page and 'value="Luck"' in page
    text = client.post(url, {"currency": "L" * 41}).content.decode()
    assert "can be at most 40 characters (it has 41)" in text
    table.campaign.refresh_from_db()
    assert table.campaign.effective_ruleset()["currency"] == "Luck"
    # A name is shown as text, never as markup.
    client.post(url, {"currency": "<b onclick=x>Luck"})
    table.campaign.refresh_from_db()
    assert table.campaign.effective_ruleset()["currency"] == "<b onclick=x>Luck"
    scene_page = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
    assert "&lt;b onclick=x&gt;Luck" in scene_page and "<b onclick" not in scene_page


@pytest.mark.django_db
def test_the_tools_head_the_column_with_the_campaigns_name_and_the_gm_steps_it():
    table, cast = any_game_table()
    ruleset_update(
        campaign=table.campaign,
        actor=table.gm,
        overrides={"currency": "Hero point / Hero points"},
    )
    context = tools_context(table.scene, Viewer(user_id=table.gm.pk, is_gm=True))
    row = next(r for r in context["table"] if r["character"].pk == cast["mira"].pk)
    assert [(v["label"], v["steps"]) for v in row["values"]] == [("Hero points", True)]
    event = actions.award(
        scene=table.scene, actor=table.gm, character=cast["mira"], field="table_currency", amount=1
    )
    assert event.public["text"] == "gave 1 hero point"
    event = actions.award(
        scene=table.scene, actor=table.gm, character=cast["mira"], field="table_currency", amount=2
    )
    assert event.public["text"] == "gave 2 hero points" and held(cast["mira"]) == 3
    with pytest.raises(PermissionDenied):
        actions.award(
            scene=table.scene,
            actor=table.alice,
            character=cast["mira"],
            field="table_currency",
            amount=1,
        )
    # The registry's word is the fallback; the campaign's is what the table reads.
    assert systems.get("any_game").currency("table_currency").label == "Currency"


# --- a player spends one of their own -----------------------------------------------------


@pytest.mark.django_db
def test_a_player_spends_one_of_their_own_in_the_log_and_never_past_zero():
    table, cast = any_game_table(held=1)
    ruleset_update(campaign=table.campaign, actor=table.gm, overrides={"currency": "Inspiration"})
    with pytest.raises(PermissionDenied, match="Only Mira's player"):
        currency_spend(scene=table.scene, actor=table.bob, character=cast["mira"])
    with pytest.raises(PermissionDenied, match="Only Mira's player"):
        currency_spend(scene=table.scene, actor=table.gm, character=cast["mira"])
    with pytest.raises(ValidationError, match="at most 200 characters"):
        currency_spend(scene=table.scene, actor=table.alice, character=cast["mira"], note="x" * 201)
    assert held(cast["mira"]) == 1 and not SceneEvent.objects.filter(kind="currency_spend")
    event = currency_spend(
        scene=table.scene, actor=table.alice, character=cast["mira"], note="reroll the save"
    )
    assert event.public == {
        "who": "alice",
        "character": "Mira",
        "one": "inspiration",
        "left": 0,
        "note": "reroll the save",
    }
    with pytest.raises(ValidationError, match="Mira has 0 inspiration and this takes 1"):
        currency_spend(scene=table.scene, actor=table.alice, character=cast["mira"])
    assert held(cast["mira"]) == 0
    assert SceneEvent.objects.filter(kind="currency_spend").count() == 1


@pytest.mark.django_db
def test_the_spend_is_a_command_and_only_for_any_game():
    table, cast = any_game_table(held=2)
    actions.run_command(
        command="currency_spend",
        scene_id=table.scene.pk,
        user=table.alice,
        data={"character": str(cast["mira"].pk), "note": "<script>x</script>"},
    )
    assert held(cast["mira"]) == 1
    card = SceneEvent.objects.get(kind="currency_spend")
    html = render_card(card, "full", Viewer(user_id=table.bob.pk, is_gm=False), live=False)
    assert "&lt;script&gt;" in html and "<script>x" not in html
    assert "spends 1 inspiration for <strong>Mira</strong>" in html and "(1 left)" in html
    other = Campaign.objects.create(name="Other", system="conductor", gm=table.gm)
    assert other.game.currency("table_currency") is None


@pytest.mark.django_db
def test_the_column_never_goes_below_zero():
    _, cast = any_game_table()
    with pytest.raises(IntegrityError), transaction.atomic():
        AnyGameSheet.objects.filter(pk=cast["mira"].pk).update(table_currency=-1)


@pytest.mark.django_db
def test_a_character_is_its_notes_its_currency_and_its_saved_rolls(client):
    table, cast = any_game_table(held=2)
    ruleset_update(
        campaign=table.campaign, actor=table.gm, overrides={"currency": "Hero point / Hero points"}
    )
    client.force_login(table.alice)
    response = client.post(
        reverse("characters:create", args=[table.campaign.pk]),
        {"name": "Pip", "notes": "Gnome wizard. Int +4."},
    )
    assert response.status_code == 302
    pip = AnyGameSheet.objects.get(name="Pip")
    assert (pip.owner, pip.notes, pip.table_currency) == (table.alice, "Gnome wizard. Int +4.", 0)
    page = client.get(reverse("characters:detail", args=[cast["mira"].pk])).content.decode()
    assert "Hero points" in page and "Saved rolls" in page


@pytest.mark.parametrize(
    ("name", "one", "many"),
    [
        ("Hero points", "hero point", "hero points"),  # "1 hero points" before
        ("Hero point", "hero point", "hero points"),  # "2 hero point" before
        ("Fate tokens", "fate token", "fate tokens"),
        ("Bennies", "benny", "bennies"),
        ("Drama die", "drama die", "drama dice"),
        ("Luck", "luck", "luck"),  # a mass noun: "2 luck"
        ("Inspiration", "inspiration", "inspiration"),
        ("Checkpoint", "checkpoint", "checkpoint"),  # not the word "point"
        ("Hero point / Heroes' points", "hero point", "heroes' points"),  # the GM's own words win
    ],
)
def test_a_one_word_currency_is_counted_in_its_right_form(name, one, many):
    words = any_game.currency_words(any_game.validate_ruleset({"currency": name}))
    assert words[1:] == (one, many)


@pytest.mark.django_db
def test_the_log_counts_a_one_word_currency_in_its_right_form():
    table, cast = any_game_table(held=0)
    ruleset_update(campaign=table.campaign, actor=table.gm, overrides={"currency": "Hero points"})
    mira = cast["mira"]
    texts = [
        actions.award(
            scene=table.scene, actor=table.gm, character=mira, field="table_currency", amount=n
        ).public["text"]
        for n in (1, 2, -1)
    ]
    assert texts == ["gave 1 hero point", "gave 2 hero points", "took back 1 hero point"]
    spent = currency_spend(scene=table.scene, actor=table.alice, character=mira)
    html = render_card(spent, "full", Viewer(user_id=table.gm.pk, is_gm=True), live=False)
    assert "spends 1 hero point for" in html
