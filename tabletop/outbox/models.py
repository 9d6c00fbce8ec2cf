"""The outbox: what the site sends out of itself (mail, a Discord mirror's posts), kept in the
database until it is sent, so a restart loses nothing (tabletop/outbox/sender.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Outgoing(models.Model):
    """One message waiting to go out, being sent, sent, or dropped."""

    #: which transport sends it (``sender.TRANSPORTS``): "mail", "discord"
    channel = models.CharField(max_length=20)
    #: rows of one stream go one at a time, in the order they were written: a row is not
    #: claimed while an earlier row of its stream is pending ("discord:<scene>": a scene's
    #: posts in order); "" for a row that waits on no other
    stream = models.CharField(max_length=40, blank=True, default="")
    #: the member it is for, and the campaign it speaks of: a member who left that campaign
    #: gets nothing more from it (their pending messages are dropped)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    campaign = models.ForeignKey(
        "campaigns.Campaign", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    address = models.CharField(max_length=254, blank=True)
    subject = models.CharField(max_length=200, blank=True)
    body = models.TextField()
    headers = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    #: not before this (a retry's backoff)
    due_at = models.DateTimeField(default=timezone.now)
    attempts = models.PositiveSmallIntegerField(default=0)
    #: a sender's claim: its token, until when (a claim past it was a process that died)
    claimed_by = models.CharField(max_length=40, blank=True, default="")
    claimed_until = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    #: given up on (too many failures) or dropped (its member left): why
    dropped_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        indexes = [
            models.Index(
                fields=["due_at"],
                condition=models.Q(sent_at__isnull=True, dropped_at__isnull=True),
                name="outgoing_pending",
            ),
            models.Index(fields=["user", "channel", "created_at"], name="outgoing_per_member"),
            models.Index(
                fields=["stream", "id"],
                condition=models.Q(sent_at__isnull=True, dropped_at__isnull=True),
                name="outgoing_stream_pending",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.channel} to {self.address or self.user_id}: {self.subject}"
