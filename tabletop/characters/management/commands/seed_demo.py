"""Seed a demo table: one campaign per system, a GM and two players with full sheets, and an
open scene in each to play at.

Idempotent: users are created if missing (their password is reset to the demo one each run),
campaigns and characters are found by name and left alone if they exist. State changes go
through the campaigns and characters actions, like any other write.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from tabletop import systems
from tabletop.campaigns.actions import campaign_create, campaign_join, invite_create, invite_revoke
from tabletop.campaigns.models import Campaign, Membership
from tabletop.characters.actions import character_adjust, character_create
from tabletop.characters.demo import GM, PLAYERS
from tabletop.characters.models import Character, SavedRoll
from tabletop.characters.saved_rolls import saved_roll_add
from tabletop.characters.sheets import spec_for
from tabletop.notify.actions import mark_seen
from tabletop.scenes.actions import scene_create, scene_open
from tabletop.scenes.models import Scene

DEMO_PASSWORD = "tabletop-demo"
#: Saved rolls on each player's first character, and each member's own (players', the GM's).
DEMO_CHARACTER_ROLLS = (("Longsword", "1d20+5"), ("Damage", "1d8+3"))
DEMO_OWN_ROLLS = {False: (("Luck", "1d6"),), True: (("Wandering monsters", "2d6"),)}
#: Where `make run` serves by default; `make demo` passes the HOST and PORT it was given.
URL = "http://127.0.0.1:8000/"
#: Each demo campaign's scene, open and ready to play.
SCENE = "Game night"


def demo_characters(campaign: Campaign) -> list[dict[str, Any]]:
    """(owner, name, kind, sheet, currencies) for each demo character: the system's own."""
    demo = campaign.game.demo
    return demo(spec_for(campaign)) if demo is not None else []


class Command(BaseCommand):
    help = "Create a demo campaign per system with users gm, alice and bob (idempotent)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--password", default=DEMO_PASSWORD, help="The demo users' password.")
        parser.add_argument("--url", default=URL, help="Where the site is served (printed).")

    def handle(self, *args: Any, password: str, url: str, **options: Any) -> None:
        scenes = []
        with transaction.atomic():
            users = {name: self._user(name, password) for name in (GM, *PLAYERS)}
            for system in systems.all_systems():
                campaign = self._campaign(system, users)
                for character in demo_characters(campaign):
                    self._character(campaign, users, character)
                self._saved_rolls(campaign, users)
                scenes.append(self._scene(campaign, users))
        self.stdout.write(self.style.SUCCESS("Demo table ready."))
        self.stdout.write(f"Open {url} and log in as one of (password {password!r}):")
        self.stdout.write(f"  {GM:6} the GM of every demo campaign")
        for name in PLAYERS:
            self.stdout.write(f"  {name:6} a player with a character in each")
        self.stdout.write(
            "Each has the address NAME@example.org: a password reset mail prints on the "
            "`make run` terminal."
        )
        self.stdout.write("Scenes open to play:")
        base = url.rstrip("/")
        for scene in scenes:
            self.stdout.write(f"  {scene.campaign.name}: {base}/scenes/{scene.pk}/")

    def _user(self, username: str, password: str) -> Any:
        user, created = get_user_model().objects.get_or_create(
            username=username, defaults={"email": f"{username}@example.org"}
        )
        user.set_password(password)
        user.save(update_fields=["password"])
        self.stdout.write(f"{'Created' if created else 'Found'} user {username}.")
        return user

    def _campaign(self, system: systems.System, users: dict[str, Any]) -> Campaign:
        title = system.label.split(" (")[0]
        name = f"Demo: {title}"
        gm = users[GM]
        campaign = Campaign.objects.filter(name=name, gm=gm, system=system.slug).first()
        if campaign is None:
            campaign = campaign_create(
                gm=gm,
                name=name,
                system=system.slug,
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

    def _scene(self, campaign: Campaign, users: dict[str, Any]) -> Scene:
        gm = users[GM]
        scene = Scene.objects.filter(campaign=campaign, name=SCENE).first()
        if scene is None:
            scene = scene_create(campaign=campaign, actor=gm, name=SCENE)
        if not scene.is_open:
            scene = scene_open(scene=scene, actor=gm)
            # A scene the demo opens is no news to its players: seen, so `make run` mails
            # nobody about it (a digest each would spend their mails of the hour) and counts
            # nothing unread. A scene played since keeps its unread.
            scene.refresh_from_db(fields=["last_seq"])
            for player in PLAYERS:
                mark_seen(scene=scene, user=users[player], seq=scene.last_seq, visible=False)
        return scene

    def _saved_rolls(self, campaign: Campaign, users: dict[str, Any]) -> None:
        """A few saved rolls to try (the Sheet tool's buttons, /r longsword): on each player's
        first character, and each member's own; those already there are left alone."""
        for name in (GM, *PLAYERS):
            user = users[name]
            first = Character.objects.filter(campaign=campaign, owner=user, role="pc").first()
            wanted = [(None, *roll) for roll in DEMO_OWN_ROLLS[name == GM]]
            if first is not None:
                wanted += [(first, *roll) for roll in DEMO_CHARACTER_ROLLS]
            for character, roll_name, dice in wanted:
                kept = SavedRoll.objects.filter(campaign=campaign, owner=user, character=character)
                if not kept.filter(name=roll_name).exists():
                    saved_roll_add(
                        actor=user,
                        campaign=campaign,
                        character=character,
                        name=roll_name,
                        dice=dice,
                    )

    def _character(self, campaign: Campaign, users: dict[str, Any], data: dict[str, Any]) -> None:
        owner = users[data["owner"]]
        if Character.objects.of_campaign(campaign).filter(owner=owner, name=data["name"]).exists():
            return
        character = character_create(
            campaign=campaign,
            actor=owner,
            name=data["name"],
            role=data["role"],
            sheet=data["sheet"],
        )
        if data.get("currencies"):
            character_adjust(character=character, actor=users[GM], **data["currencies"])
        self.stdout.write(f"  {campaign.name}: created {character.name} ({character.role}).")
