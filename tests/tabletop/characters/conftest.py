"""Campaigns, members and characters for the characters tests, made directly through the models."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tabletop.campaigns.models import Campaign, Membership
from tabletop.characters.models import Character


@pytest.fixture
def gm(django_user_model):
    return django_user_model.objects.create_user(username="gm", password="pw-for-tests-1")


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user(username="alice", password="pw-for-tests-1")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user(username="bob", password="pw-for-tests-1")


@pytest.fixture
def outsider(django_user_model):
    return django_user_model.objects.create_user(username="eve", password="pw-for-tests-1")


@pytest.fixture
def make_campaign(gm, alice, bob) -> Callable[..., Campaign]:
    """A campaign of the given system run by gm, with alice and bob as players."""

    def make(system: str, **kwargs: Any) -> Campaign:
        campaign = Campaign.objects.create(name=f"Test {system}", system=system, gm=gm, **kwargs)
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        for player in (alice, bob):
            Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
        return campaign

    return make


@pytest.fixture
def make_character() -> Callable[..., Character]:
    def make(campaign: Campaign, owner, name: str = "Hero", **fields: Any) -> Character:
        return Character.objects.create(campaign=campaign, owner=owner, name=name, **fields)

    return make
