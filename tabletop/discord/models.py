"""A campaign's Discord mirror (its webhook and what goes there) and the messages it posted."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class MirrorQuerySet(models.QuerySet):
    def running(self) -> MirrorQuerySet:
        """The mirrors Discord has not refused: what they send still goes."""
        return self.filter(stopped_at__isnull=True)


class Mirror(models.Model):
    """A campaign's Discord mirror: the webhook it posts to and what goes there. The webhook's
    token is a secret: shown to nobody (masked for the GM), never logged, never in an outbox
    row; the URL is built from ``DISCORD_API_BASE`` when a request is made. No row: no mirror.
    """

    class Sends(models.TextChoices):
        CHAT = "chat", "Chat lines and emotes"
        ROLLS = "rolls", "Rolls (a hidden roll as a stub, never its dice, until its reveal)"
        SPENDS = "spends", "Spends, awards and approvals"
        REVEALS = "reveals", "Reveals (the stub's message is edited to show the roll)"
        SCENES = "scenes", "A scene opened or closed"
        TABLE = "table", "Turns and the game's other moves at the table"

    campaign = models.OneToOneField(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="discord_mirror"
    )
    webhook_id = models.CharField(max_length=20)
    token = models.CharField(max_length=100)
    #: what goes there (``Sends`` values)
    sends = models.JSONField(default=list)
    #: when this webhook was set: the mirror starts at each scene's position then
    started_at = models.DateTimeField(default=timezone.now)
    #: Discord refused the webhook (401, 404: deleted): nothing more goes until a new URL
    stopped_at = models.DateTimeField(null=True, blank=True)
    stopped_why = models.CharField(max_length=300, blank=True, default="")
    #: Discord's rate limit: no request before this (shared by every process)
    not_before = models.DateTimeField(null=True, blank=True)
    #: the last post Discord took, and the last test message
    posted_at = models.DateTimeField(null=True, blank=True)
    tested_at = models.DateTimeField(null=True, blank=True)

    objects = MirrorQuerySet.as_manager()

    def __str__(self) -> str:
        return f"Discord mirror of {self.campaign_id} (webhook {self.webhook_id})"

    @property
    def masked_url(self) -> str:
        """The webhook's URL as the GM sees it: its id, never its token."""
        return f"{settings.DISCORD_API_BASE}/webhooks/{self.webhook_id}/••••••••"

    @property
    def running(self) -> bool:
        return self.stopped_at is None

    def sends_any(self, *what: str) -> bool:
        return any(w in self.sends for w in what)


class Message(models.Model):
    """A message the mirror posted, with the id Discord gave it (``?wait=true``): the scene's
    events its embeds show, in order, which of them were stubs, and the embeds as last sent
    (a reveal edits the stub's embed in place)."""

    scene = models.ForeignKey("scenes.Scene", on_delete=models.CASCADE, related_name="+")
    webhook_id = models.CharField(max_length=20)
    message_id = models.CharField(max_length=20)
    first_seq = models.PositiveIntegerField()
    last_seq = models.PositiveIntegerField()
    seqs = models.JSONField(default=list)
    stubs = models.JSONField(default=list)
    embeds = models.JSONField(default=list)
    posted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["scene", "webhook_id", "first_seq"], name="discord_message_seq")
        ]

    def __str__(self) -> str:
        return f"message {self.message_id}: scene {self.scene_id} #{self.first_seq}-{self.last_seq}"
