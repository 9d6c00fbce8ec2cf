import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("campaigns", "0002_system_from_registry"),
        ("scenes", "0007_reader_cursors"),
    ]

    operations = [
        migrations.CreateModel(
            name="Mirror",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("webhook_id", models.CharField(max_length=20)),
                ("token", models.CharField(max_length=100)),
                ("sends", models.JSONField(default=list)),
                ("started_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("stopped_at", models.DateTimeField(blank=True, null=True)),
                ("stopped_why", models.CharField(blank=True, default="", max_length=300)),
                ("not_before", models.DateTimeField(blank=True, null=True)),
                ("posted_at", models.DateTimeField(blank=True, null=True)),
                ("tested_at", models.DateTimeField(blank=True, null=True)),
                (
                    "campaign",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="discord_mirror",
                        to="campaigns.campaign",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="Message",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("webhook_id", models.CharField(max_length=20)),
                ("message_id", models.CharField(max_length=20)),
                ("first_seq", models.PositiveIntegerField()),
                ("last_seq", models.PositiveIntegerField()),
                ("seqs", models.JSONField(default=list)),
                ("stubs", models.JSONField(default=list)),
                ("embeds", models.JSONField(default=list)),
                ("posted_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "scene",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="scenes.scene",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(
                        fields=["scene", "webhook_id", "first_seq"], name="discord_message_seq"
                    )
                ],
            },
        ),
    ]
