"""People and a campaign for the campaigns tests: a GM, a player at the table, an outsider."""

from __future__ import annotations

import pytest

from tabletop.campaigns import actions


@pytest.fixture
def gm(django_user_model):
    return django_user_model.objects.create_user(username="gwen", password="pw-gm-12345")


@pytest.fixture
def player(django_user_model):
    return django_user_model.objects.create_user(username="pip", password="pw-player-12345")


@pytest.fixture
def outsider(django_user_model):
    return django_user_model.objects.create_user(username="otto", password="pw-out-12345")


def make_campaign(gm, system="roll_and_keep", name="The Black Tower"):
    return actions.campaign_create(gm=gm, name=name, system=system)


@pytest.fixture
def campaign(gm):
    return make_campaign(gm)


@pytest.fixture
def seated_player(campaign, gm, player):
    """The player, joined through an invite link."""
    invite = actions.invite_create(campaign=campaign, actor=gm)
    actions.campaign_join(user=player, token=invite.token)
    return player
