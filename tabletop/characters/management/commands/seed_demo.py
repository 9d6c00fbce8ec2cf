"""Seed a demo table: one campaign per system, a GM and two players with full sheets.

Idempotent: users are created if missing (their password is reset to the demo one each run),
campaigns and characters are found by name and left alone if they exist. State changes go
through the campaigns and characters actions, like any other write.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from tabletop.campaigns.actions import campaign_create, campaign_join, invite_create, invite_revoke
from tabletop.campaigns.models import Campaign, Membership, System
from tabletop.characters.actions import character_adjust, character_create
from tabletop.characters.models import Character
from tabletop.characters.sheets import spec_for

DEMO_PASSWORD = "tabletop-demo"
GM, PLAYERS = "gm", ("alice", "bob")
URL = "http://127.0.0.1:8000/"

PC, NPC, FOE = Character.Kind.PC, Character.Kind.NPC, Character.Kind.FOE


def _by_position(names: tuple[str, ...], values: list[Any]) -> dict[str, Any]:
    """The ruleset's names (so a renamed default still seeds) paired with demo values."""
    return dict(zip(names, values, strict=False))


def demo_characters(campaign: Campaign) -> list[dict[str, Any]]:
    """(owner, name, kind, sheet, currencies) for each demo character of the campaign."""
    spec = spec_for(campaign)
    if campaign.system == System.ANNULUS:
        return [
            {
                "owner": "alice",
                "name": "Mira Vell",
                "kind": PC,
                "sheet": {
                    "training_perks": _by_position(spec.challenge_types, [2, 1, 0, 1]),
                    "notes": "Scholar of dead machines; reads glyphs faster than she reads people.",
                },
            },
            {
                "owner": "bob",
                "name": "Dorrin Hale",
                "kind": PC,
                "sheet": {
                    "training_perks": _by_position(spec.challenge_types, [0, 1, 2, 1]),
                    "notes": "Former vault-breaker with steady hands and a bad knee.",
                },
            },
            {
                "owner": GM,
                "name": "Archivist Quell",
                "kind": NPC,
                "sheet": {"training_perks": _by_position(spec.challenge_types, [3, 0, 0, 2])},
            },
        ]
    if campaign.system == System.ROLL_AND_KEEP:
        return [
            {
                "owner": "alice",
                "name": "Sable",
                "kind": PC,
                # The seed's worked example: Black 3, Blue 2 and its four specialities.
                "sheet": {
                    "attributes": {
                        "Cunning": 4,
                        "Intelligence": 3,
                        "Strength": 2,
                        "Endurance": 3,
                        "Charisma": 2,
                        "Finesse": 3,
                        "Acuity": 2,
                    },
                    "mana": {"Black": 3, "Blue": 2},
                    "specialities": [
                        {"name": "Deceit", "attribute": "Cunning"},
                        {"name": "Artifice", "attribute": "Intelligence"},
                        {"name": "Stealth", "attribute": "Finesse"},
                        {"name": "Elemental Damage", "attribute": "Endurance"},
                    ],
                    "notes": "Carries a staff she insists is only for walking.",
                },
            },
            {
                "owner": "bob",
                "name": "Orrin Flint",
                "kind": PC,
                "sheet": {
                    "attributes": {
                        "Cunning": 2,
                        "Intelligence": 2,
                        "Strength": 4,
                        "Endurance": 5,
                        "Charisma": 3,
                        "Finesse": 2,
                        "Acuity": 2,
                    },
                    "mana": {"Red": 3, "Green": 2},
                    "specialities": [
                        {"name": "Brawling", "attribute": "Strength"},
                        {"name": "Long-distance Running", "attribute": "Endurance"},
                    ],
                },
            },
            {
                "owner": GM,
                "name": "Magistrate Ivo",
                "kind": NPC,
                "sheet": {
                    "attributes": {"Cunning": 5, "Charisma": 4, "Intelligence": 3},
                    "mana": {"White": 2, "Black": 2},
                    "specialities": [{"name": "Law", "attribute": "Intelligence"}],
                },
            },
        ]
    if campaign.system == System.CONDUCTOR:
        return [
            {
                "owner": "alice",
                "name": "Kestrel",
                "kind": PC,
                "sheet": {
                    "skills": [
                        {"name": "Weapon", "specialisation": "Sword", "value": 2},
                        {"name": "Survival", "value": 1},
                        {"name": "Awareness", "specialisation": "Sight", "value": 1},
                        {"name": "Acrobatics", "value": 1},
                    ],
                    "difficulty": spec.default_difficulty,
                },
                "currencies": {"bennies": 3},
            },
            {
                "owner": "bob",
                "name": "Brannoc",
                "kind": PC,
                "sheet": {
                    "skills": [
                        {"name": "Strength", "value": 2},
                        {"name": "Healing", "value": 1},
                        {"name": "Art/Craft", "specialisation": "Blacksmithing", "value": 1},
                        {"name": "Survival", "value": 1},
                    ],
                    "difficulty": spec.default_difficulty,
                },
                "currencies": {"bennies": 2},
            },
            {
                "owner": GM,
                "name": "Bog Wight",
                "kind": FOE,
                "sheet": {"skills": [{"name": "Strength", "value": 2}], "difficulty": 4},
            },
            {
                "owner": GM,
                "name": "Ridge Wolf",
                "kind": FOE,
                "sheet": {"skills": [{"name": "Acrobatics", "value": 1}], "difficulty": 3},
            },
        ]
    if campaign.system == System.TWO_DICE:
        resources = tuple(spec.resources)
        return [
            {
                "owner": "alice",
                "name": "Tamsin Reed",
                "kind": PC,
                "sheet": {
                    "attributes": _by_position(spec.attributes, [1, 3, 2, 0]),
                    "resources": _by_position(
                        resources, [{"current": v, "max": v} for v in (5, 6, 5, 3)]
                    ),
                },
            },
            {
                "owner": "bob",
                "name": "Garrick Stone",
                "kind": PC,
                "sheet": {
                    "attributes": _by_position(spec.attributes, [3, 1, 0, 2]),
                    "resources": _by_position(
                        resources, [{"current": v, "max": v} for v in (7, 4, 3, 5)]
                    ),
                },
            },
            {
                "owner": GM,
                "name": "Captain Rhee",
                "kind": FOE,
                "sheet": {
                    "attributes": _by_position(spec.attributes, [2, 2, 1, 3]),
                    "resources": _by_position(
                        resources, [{"current": v, "max": v} for v in (6, 5, 4, 6)]
                    ),
                },
            },
        ]
    if campaign.system == System.PERCENTILE:
        return [
            {
                "owner": "alice",
                "name": "Tomalfson",
                "kind": PC,
                # The seed's running example: Quickness -9, total penalty -65, MV 26.
                "sheet": {
                    "quickness": -9,
                    "mv": 26,
                    "total_penalty": -65,
                    "attributes": {"Perceptivity": 5},
                    "skills": [
                        {"name": "Broadsword", "value": 55},
                        {"name": "Climbing", "value": 20},
                        {"name": "Detect Traps", "value": 15},
                    ],
                    "notes": "Cannot run in that armour, yet.",
                },
                "currencies": {"plot_points_total": 3, "plot_points": 3, "development_points": 4},
            },
            {
                "owner": "bob",
                "name": "Ilsa Marrow",
                "kind": PC,
                "sheet": {
                    "quickness": 12,
                    "mv": 20,
                    "total_penalty": -5,
                    "attributes": {"Perceptivity": 15},
                    "skills": [
                        {"name": "Running", "value": 40},
                        {"name": "Lockpicking", "value": 35},
                        {"name": "Short Bow", "value": 30},
                    ],
                },
                "currencies": {"plot_points_total": 3, "plot_points": 2, "development_points": 1},
            },
            {
                "owner": GM,
                "name": "Old Hanna",
                "kind": NPC,
                "sheet": {
                    "attributes": {"Perceptivity": 25},
                    "skills": [{"name": "Herbs", "value": 60}],
                },
            },
        ]
    return []


class Command(BaseCommand):
    help = "Create a demo campaign per system with users gm, alice and bob (idempotent)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--password", default=DEMO_PASSWORD, help="The demo users' password.")

    def handle(self, *args: Any, password: str, **options: Any) -> None:
        with transaction.atomic():
            users = {name: self._user(name, password) for name in (GM, *PLAYERS)}
            for system in System:
                campaign = self._campaign(system, users)
                for character in demo_characters(campaign):
                    self._character(campaign, users, character)
        self.stdout.write(self.style.SUCCESS("Demo table ready."))
        self.stdout.write(f"Open {URL} and log in as one of (password {password!r}):")
        self.stdout.write(f"  {GM:6} the GM of every demo campaign")
        for name in PLAYERS:
            self.stdout.write(f"  {name:6} a player with a character in each")

    def _user(self, username: str, password: str) -> Any:
        user, created = get_user_model().objects.get_or_create(username=username)
        user.set_password(password)
        user.save(update_fields=["password"])
        self.stdout.write(f"{'Created' if created else 'Found'} user {username}.")
        return user

    def _campaign(self, system: System, users: dict[str, Any]) -> Campaign:
        title = system.label.split(" (")[0]
        name = f"Demo: {title}"
        gm = users[GM]
        campaign = Campaign.objects.filter(name=name, gm=gm, system=system).first()
        if campaign is None:
            campaign = campaign_create(
                gm=gm,
                name=name,
                system=system,
                description=f"A demo table for {title}: {GM} runs it, alice and bob play.",
            )
            self.stdout.write(f"Created campaign {name}.")
        missing = [
            users[player]
            for player in PLAYERS
            if not Membership.objects.filter(campaign=campaign, user=users[player]).exists()
        ]
        if missing:
            # Players join the way real ones do: through an invite link, revoked afterwards.
            invite = invite_create(campaign=campaign, actor=gm)
            for player in missing:
                campaign_join(user=player, token=invite.token)
            invite_revoke(invite=invite, actor=gm)
        return campaign

    def _character(self, campaign: Campaign, users: dict[str, Any], data: dict[str, Any]) -> None:
        owner = users[data["owner"]]
        if Character.objects.filter(campaign=campaign, owner=owner, name=data["name"]).exists():
            return
        character = character_create(
            campaign=campaign,
            actor=owner,
            name=data["name"],
            kind=data["kind"],
            sheet=data["sheet"],
        )
        if data.get("currencies"):
            character_adjust(character=character, actor=users[GM], **data["currencies"])
        self.stdout.write(f"  {campaign.name}: created {character.name} ({character.kind}).")
