"""Live scenes and their event log.

Every roll, spend and reveal is a ``SceneEvent`` with a gapless per-scene ``seq`` assigned in the
writing transaction. ``public`` is what every viewer allowed to know the event happened may see;
``secret`` is what only its full audience may see (see tabletop/scenes/audiences.py, the one place
that decides visibility). A secret is committed to at creation (``commitment``) with a nonce kept
server-side until it is revealed.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from tabletop.campaigns.models import Campaign


class Scene(models.Model):
    class Status(models.TextChoices):
        PREPARED = "prepared", "Prepared"
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="scenes")
    name = models.CharField(max_length=100)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PREPARED)
    # The newest seq handed out; incremented under a row lock so seqs are gapless.
    last_seq = models.PositiveIntegerField(default=0)
    # Live procedures (turn tracker, expedition, op challenge, ...) keyed by kind.
    state = models.JSONField(default=dict, blank=True)
    # The session ledger's head: the hash of its newest entry ("" before the first), read and
    # moved under the same row lock as ``last_seq`` (tabletop/scenes/ledger.py).
    ledger_head = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN


class Audience(models.TextChoices):
    """Who sees an event. The roll modes of the roll form map onto these."""

    EVERYONE = "everyone", "Public"
    GM_ONLY = "gm_only", "GM only (secret)"
    PRIVATE = "private", "Private to GM"  # GM and the actor see it; others see that it happened
    BLIND = "blind", "Blind to GM"  # only the GM sees it; the actor sees only that it happened
    SELF = "self", "Self"  # only the actor
    WHISPER = "whisper", "Whisper"  # the actor and the members named in ``recipients``, no one else


class SceneEvent(models.Model):
    scene = models.ForeignKey(Scene, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=40)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    character = models.ForeignKey(
        "characters.Character", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    audience = models.CharField(max_length=10, choices=Audience.choices, default=Audience.EVERYONE)
    public = models.JSONField(default=dict, blank=True)
    secret = models.JSONField(default=dict, blank=True)
    # A whisper's audience besides its actor (user ids); empty for every other audience.
    recipients = models.JSONField(default=list, blank=True)
    # sha256(canonical_json(secret) + ":" + nonce); nonce stays server-side until revealed.
    commitment = models.CharField(max_length=64, blank=True)
    nonce = models.CharField(max_length=64, blank=True)
    revealed_at = models.DateTimeField(null=True, blank=True)
    # A later event that changed this one's card (a benny spend on a roll) points at it.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    # Set before the row is written (not auto_now_add) so its ledger entry holds the same time.
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    # Its session ledger entry as recorded (events every member knows of: everyone, private,
    # blind), frozen even when later spends change ``public``, and that entry's hash.
    ledger = models.JSONField(null=True, blank=True)
    ledger_hash = models.CharField(max_length=64, blank=True, default="")
    # The command that wrote this event, as "<sender's user id>:<the page's command id>", on the
    # first event a command records: a command sent again (a resend after a reconnect, a retry
    # after a timeout) finds it and is answered as done, never made twice.
    command_id = models.CharField(max_length=60, blank=True, default="")

    class Meta:
        ordering = ["scene", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["scene", "seq"], name="gapless_scene_seq"),
            models.UniqueConstraint(
                fields=["scene", "command_id"],
                condition=~models.Q(command_id=""),
                name="scene_command_once",
            ),
        ]
        indexes = [models.Index(fields=["scene", "seq"])]

    def __str__(self) -> str:
        return f"{self.scene_id}#{self.seq} {self.kind}"


class Presence(models.Model):
    """One open socket on a scene; rows older than a few heartbeats are stale (a dead process)."""

    scene = models.ForeignKey(Scene, on_delete=models.CASCADE, related_name="presences")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    channel_name = models.CharField(max_length=200, unique=True)
    last_seen = models.DateTimeField()
    # The round trip its page measured last (ms), brought by the scene's beat.
    rtt_ms = models.PositiveIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.user} on {self.scene}"


def roll_data(event: SceneEvent) -> dict[str, Any]:
    """The roll as the table sees it now: what was rolled, with any spends' amendments on top
    (server side: its secret too)."""
    data = {**event.public, **event.secret}
    data.update(event.public.get("amended", {}))
    return data


def with_sheet(event: SceneEvent) -> SceneEvent:
    """The event's character as its system keeps it (read with the event: ``sheet_joins``),
    for the cards and spends that read its sheet."""
    if event.character_id is not None:
        event.character = event.character.sheet
    return event


class ReaderCursor(models.Model):
    """A durable reader's place in a scene's events (tabletop/scenes/feed/durable.py): the
    last seq it has handled, as ``user`` (a member, worked out afresh at each read) or as an
    outsider (no user). It moves only by a conditional UPDATE in the transaction of what the
    reader made of the events, so two processes never both handle the same ones."""

    reader = models.CharField(max_length=40)
    scene = models.ForeignKey(Scene, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    seq = models.PositiveIntegerField(default=0)
    moved_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["reader", "scene", "user"],
                condition=models.Q(user__isnull=False),
                name="one_cursor_per_member",
            ),
            models.UniqueConstraint(
                fields=["reader", "scene"],
                condition=models.Q(user__isnull=True),
                name="one_outside_cursor",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.reader} on {self.scene_id} at {self.seq}"
