"""The conductor sheet's table, filled with what its campaigns' characters held on ``Character``
(carried here by characters 0002's ``moving``), and emptied back into it backwards."""

import django.db.models.deletion
from django.db import migrations, models

from tabletop.systems.models import sheet_from_character


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("campaigns", "0002_system_from_registry"),
        ("characters", "0002_sheet_fields_leave_character"),
    ]
    run_before = [("characters", "0003_remove_character_moving")]

    operations = [
        migrations.CreateModel(
            name="ConductorSheet",
            fields=[
                (
                    "character",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        parent_link=True,
                        primary_key=True,
                        related_name="conductor_sheet",
                        serialize=False,
                        to="characters.character",
                    ),
                ),
                ("skills", models.JSONField(blank=True, default=list)),
                ("difficulty", models.PositiveSmallIntegerField(default=3)),
                ("bennies", models.PositiveIntegerField(default=0)),
                ("hits", models.PositiveIntegerField(default=0)),
                ("lasting_hits", models.PositiveIntegerField(default=0)),
            ],
            bases=("characters.character",),
        ),
        sheet_from_character("conductor", "ConductorSheet"),
    ]
