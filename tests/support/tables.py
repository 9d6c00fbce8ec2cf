"""The one table factory: a campaign of any registered system with a GM, two players and an
outsider, and an open scene."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model

from tabletop.campaigns.models import Campaign, Membership
from tabletop.scenes import actions
from tabletop.scenes.models import Scene


@dataclass
class Table:
    gm: Any
    alice: Any
    bob: Any
    outsider: Any
    campaign: Campaign
    scene: Scene


def make_table(system: str = "conductor") -> Table:
    users = get_user_model().objects
    gm = users.create_user("gm", password="a-long-table-secret")
    alice = users.create_user("alice", password="a-long-table-secret")
    bob = users.create_user("bob", password="a-long-table-secret")
    outsider = users.create_user("outsider", password="a-long-table-secret")
    campaign = Campaign.objects.create(name="Vault", system=system, gm=gm)
    Membership.objects.create(campaign=campaign, user=gm, role="gm")
    Membership.objects.create(campaign=campaign, user=alice)
    Membership.objects.create(campaign=campaign, user=bob)
    scene = actions.scene_create(campaign=campaign, actor=gm, name="The sunken vault")
    scene = actions.scene_open(scene=scene, actor=gm)
    return Table(gm, alice, bob, outsider, campaign, scene)


def mira_and_troll(table: Table, *, troll_difficulty: int = 4, **mira: Any) -> tuple[Any, Any]:
    """alice's Mira (a skilled PC; ``mira``: more of her sheet) and the GM's cave troll (a foe),
    the pair the secrecy tests and the conductor tables roll with."""
    from tabletop.characters.models import Character, sheet_model

    # What of this sheet the table's system keeps (one helper serves every system's tests).
    keeps = {f.name for f in sheet_model(table.campaign.system)._meta.get_fields()}

    def sheet(**fields: Any) -> dict[str, Any]:
        return {name: value for name, value in fields.items() if name in keeps}

    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Mira",
        **sheet(
            skills=[{"name": "Acrobatics", "value": 1, "specialisation": ""}],
            difficulty=3,
            **{"bennies": 0, **mira},
        ),
    )
    troll = Character.objects.create(
        campaign=table.campaign,
        owner=table.gm,
        name="Cave troll",
        role="foe",
        **sheet(
            difficulty=troll_difficulty,
            skills=[{"name": "Strength", "value": 2, "specialisation": ""}],
        ),
    )
    return hero, troll
