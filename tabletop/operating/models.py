"""What the operator's tools keep in the database: the processes serving from it, the backups
made of it. Neither is in a backup (a restore says nothing about who serves now, and a backup
can't hold itself)."""

from __future__ import annotations

from django.db import models


class ServingProcess(models.Model):
    """A daphne process serving from this database, as it said at its last beat
    (``serving.PROCESS_BEAT_SECONDS``). A restore refuses while any was seen lately."""

    name = models.CharField(max_length=200, unique=True)  # host:pid:start
    host = models.CharField(max_length=200)
    pid = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    last_seen = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.host} pid {self.pid}"


class BackupMade(models.Model):
    """One backup file written by ``manage.py backup`` (or before an upgrade or a restore)."""

    class Reason(models.TextChoices):
        ASKED = "asked", "Asked for (manage.py backup)"
        UPGRADE = "upgrade", "Before migrating"
        RESTORE = "restore", "Before a restore replaced the data"

    made_at = models.DateTimeField()
    path = models.CharField(max_length=500)
    size_bytes = models.PositiveBigIntegerField()
    reason = models.CharField(max_length=10, choices=Reason.choices, default=Reason.ASKED)
    rows = models.PositiveBigIntegerField(default=0)
    # How long writers could not commit while the snapshot was taken (SQLite's copy), in ms.
    pause_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-made_at"]
        verbose_name = "backup"

    def __str__(self) -> str:
        return self.path
