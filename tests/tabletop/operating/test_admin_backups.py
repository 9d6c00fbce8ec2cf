"""The site's admin shows the backups made, the newest first: its time and size. (The
backups themselves are made in sites of their own, test_backup_restore.py, which checks
each is recorded; a backup reads its own alias of the database, which a test case's
database guard refuses.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils import timezone

from tabletop.operating.models import BackupMade


@pytest.mark.django_db
def test_the_admin_shows_the_last_backup_s_time_and_size(admin_client):
    now = timezone.now()
    BackupMade.objects.create(
        made_at=now - timedelta(days=1), path="/srv/backups/older.backup.gz", size_bytes=1_000
    )
    BackupMade.objects.create(
        made_at=now, path="/srv/backups/newest.backup.gz", size_bytes=5_432_100, reason="upgrade"
    )

    page = admin_client.get(reverse("admin:operating_backupmade_changelist")).content.decode()
    assert filesizeformat(5_432_100) in page.replace("&nbsp;", "\xa0")  # "5.2 MB"
    assert page.index("newest.backup.gz") < page.index("older.backup.gz")
    assert "Before migrating" in page
    # Made by the commands alone: no "Add" in the admin.
    assert admin_client.get(reverse("admin:operating_backupmade_add")).status_code == 403
