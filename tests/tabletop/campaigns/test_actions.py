"""The campaigns actions: who may do what, and what each one writes."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

import rules
from tabletop.campaigns import actions
from tabletop.campaigns.models import Campaign, Invite, Membership
from tests.tabletop.campaigns.conftest import make_campaign

pytestmark = pytest.mark.django_db


def test_campaign_create_makes_the_creator_gm_twice_over(gm):
    campaign = actions.campaign_create(
        gm=gm, name="  Ashes  ", system="two_dice", description="Bring snacks."
    )
    assert campaign.gm == gm
    assert campaign.name == "Ashes"
    assert campaign.ruleset == {}
    membership = Membership.objects.get(campaign=campaign)
    assert (membership.user, membership.role) == (gm, Membership.Role.GM)


@pytest.mark.parametrize("system", ["", "dnd5e", "Roll_And_Keep"])
def test_campaign_create_refuses_a_system_not_among_the_five(gm, system):
    with pytest.raises(ValidationError) as error:
        actions.campaign_create(gm=gm, name="Nope", system=system)
    assert "system" in error.value.message_dict
    assert not Campaign.objects.exists()


def test_campaign_create_refuses_a_blank_name(gm):
    with pytest.raises(ValidationError):
        actions.campaign_create(gm=gm, name="   ", system="annulus")
    assert not Campaign.objects.exists()


def test_invite_create_replaces_the_previous_link(campaign, gm):
    first = actions.invite_create(campaign=campaign, actor=gm)
    second = actions.invite_create(campaign=campaign, actor=gm)
    first.refresh_from_db()
    assert not first.is_active
    assert second.is_active
    assert first.token != second.token


def test_only_the_gm_creates_or_revokes_invites(campaign, gm, seated_player):
    with pytest.raises(PermissionDenied):
        actions.invite_create(campaign=campaign, actor=seated_player)
    invite = actions.invite_create(campaign=campaign, actor=gm)
    with pytest.raises(PermissionDenied):
        actions.invite_revoke(invite=invite, actor=seated_player)
    invite.refresh_from_db()
    assert invite.is_active


def test_join_with_an_active_token_seats_a_player(campaign, gm, player):
    invite = actions.invite_create(campaign=campaign, actor=gm)
    membership = actions.campaign_join(user=player, token=invite.token)
    assert (membership.campaign, membership.role) == (campaign, Membership.Role.PLAYER)


def test_join_with_a_revoked_or_unknown_token_is_refused(campaign, gm, player):
    invite = actions.invite_create(campaign=campaign, actor=gm)
    actions.invite_revoke(invite=invite, actor=gm)
    for token in (invite.token, "no-such-token"):
        with pytest.raises(ValidationError):
            actions.campaign_join(user=player, token=token)
    assert not Membership.objects.filter(user=player).exists()


def test_joining_twice_is_harmless_and_the_gm_stays_gm(campaign, gm, player):
    invite = actions.invite_create(campaign=campaign, actor=gm)
    first = actions.campaign_join(user=player, token=invite.token)
    second = actions.campaign_join(user=player, token=invite.token)
    assert first.pk == second.pk
    assert actions.campaign_join(user=gm, token=invite.token).role == Membership.Role.GM
    assert Membership.objects.filter(campaign=campaign).count() == 2


def test_member_remove_keeps_the_players_characters(campaign, gm, seated_player):
    from tabletop.characters.models import Character

    hero = Character.objects.create(campaign=campaign, owner=seated_player, name="Vex")
    actions.member_remove(campaign=campaign, actor=gm, user=seated_player)
    assert not Membership.objects.filter(campaign=campaign, user=seated_player).exists()
    hero.refresh_from_db()
    assert hero.owner == seated_player


def test_the_gm_cannot_be_removed(campaign, gm):
    with pytest.raises(ValidationError):
        actions.member_remove(campaign=campaign, actor=gm, user=gm)
    assert Membership.objects.filter(campaign=campaign, user=gm).exists()


def test_a_player_cannot_remove_anyone(campaign, gm, seated_player, outsider):
    invite = Invite.objects.get(campaign=campaign)
    actions.campaign_join(user=outsider, token=invite.token)
    with pytest.raises(PermissionDenied):
        actions.member_remove(campaign=campaign, actor=seated_player, user=outsider)
    assert Membership.objects.filter(campaign=campaign, user=outsider).exists()


def test_removing_a_non_member_says_so(campaign, gm, outsider):
    with pytest.raises(ValidationError):
        actions.member_remove(campaign=campaign, actor=gm, user=outsider)


# --- ruleset -------------------------------------------------------------------------------------


def test_ruleset_update_stores_only_fields_that_differ_from_the_defaults(campaign, gm):
    defaults = rules.SYSTEMS["roll_and_keep"].DEFAULT_RULESET
    links = {**defaults["links"], "Strength": ["red", "Green"]}
    actions.ruleset_update(
        campaign=campaign,
        actor=gm,
        overrides={"links": links, "colours": list(defaults["colours"])},
    )
    campaign.refresh_from_db()
    assert set(campaign.ruleset) == {"links"}  # colours equal the default: not stored
    assert campaign.effective_ruleset()["links"]["Strength"] == ["Red", "Green"]


def test_ruleset_update_refuses_an_unknown_colour_and_saves_nothing(campaign, gm):
    with pytest.raises(ValidationError) as error:
        actions.ruleset_update(
            campaign=campaign, actor=gm, overrides={"links": {"Cunning": ["Purple"]}}
        )
    assert "Purple" in " ".join(error.value.messages)
    campaign.refresh_from_db()
    assert campaign.ruleset == {}


def test_ruleset_update_is_for_the_gm_only(campaign, seated_player):
    with pytest.raises(PermissionDenied):
        actions.ruleset_update(campaign=campaign, actor=seated_player, overrides={})


def test_ruleset_update_with_nothing_resets_to_defaults(campaign, gm):
    actions.ruleset_update(campaign=campaign, actor=gm, overrides={"degrees": ["Meh", "Wow"]})
    campaign.refresh_from_db()
    assert campaign.ruleset == {"degrees": ["Meh", "Wow"]}
    actions.ruleset_update(campaign=campaign, actor=gm, overrides={})
    campaign.refresh_from_db()
    assert campaign.ruleset == {}


@pytest.mark.parametrize("system", rules.SLUGS)
def test_saving_the_defaults_back_stores_nothing(gm, system):
    campaign = make_campaign(gm, system=system)
    module = rules.SYSTEMS[system]
    actions.ruleset_update(campaign=campaign, actor=gm, overrides=dict(module.DEFAULT_RULESET))
    campaign.refresh_from_db()
    assert campaign.ruleset == {}
