"""What reaches a member between game nights: their notifications, how far they have seen
each scene (the read mark), and which mail they want from each campaign."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Notification(models.Model):
    """An event of a scene as one member may see it, kept for them by their durable reader
    (tabletop/notify/reader.py): ``why`` it reaches them ("" for an event they are not
    singled out by, mailed only to members who chose everything), who did it and what it
    was, in words that member may read."""

    class Why(models.TextChoices):
        MENTION = "mention", "mentioned you"
        WHISPER = "whisper", "whispered to you"
        TURN = "turn", "handed you the turn"
        SCENE = "scene", "opened a scene"
        ASKS = "asks", "needs you"
        NOTHING = "", "wrote"

    class Mail(models.TextChoices):
        PENDING = "", "waiting"
        MAILED = "mailed", "mailed"
        SKIPPED = "skipped", "not mailed"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="+")
    scene = models.ForeignKey("scenes.Scene", on_delete=models.CASCADE, related_name="+")
    seq = models.PositiveIntegerField()
    why = models.CharField(max_length=10, choices=Why.choices, blank=True, default="")
    who = models.CharField(max_length=150, blank=True, default="")
    what = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    #: the member's read mark passed it (their page showed it)
    seen = models.BooleanField(default=False)
    mail = models.CharField(max_length=10, choices=Mail.choices, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-seq"]
        constraints = [
            models.UniqueConstraint(fields=["user", "scene", "seq"], name="one_notice_per_event")
        ]
        indexes = [
            models.Index(fields=["user", "seen"], name="notice_unseen"),
            models.Index(fields=["mail", "created_at"], name="notice_mail_due"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} #{self.seq} {self.why or 'event'}"


class ReadMark(models.Model):
    """How far a member's page has shown a scene while visible, and when a visible page of
    theirs last said so (a member is at the table while that is recent)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    scene = models.ForeignKey("scenes.Scene", on_delete=models.CASCADE, related_name="+")
    seq = models.PositiveIntegerField(default=0)
    visible_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "scene"], name="one_read_mark")]

    def __str__(self) -> str:
        return f"{self.user_id} read {self.scene_id} to {self.seq}"


class MailChoice(models.Model):
    """Which mail a member wants from a campaign (no row: the default)."""

    class Level(models.TextChoices):
        EVERYTHING = "everything", "Everything I missed"
        REACHES = "reaches", "Mentions, whispers, turns and requests to me"
        NOTHING = "nothing", "No mail"

    DEFAULT = Level.REACHES

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="+")
    level = models.CharField(max_length=12, choices=Level.choices, default=Level.REACHES)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "campaign"], name="one_mail_choice")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.campaign_id}: {self.level}"
