"""The roll_and_keep sheet's table, filled with what its campaigns' characters held on ``Character``
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
            name="RollAndKeepSheet",
            fields=[
                (
                    "character",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        parent_link=True,
                        primary_key=True,
                        related_name="roll_and_keep_sheet",
                        serialize=False,
                        to="characters.character",
                    ),
                ),
                ("attributes", models.JSONField(blank=True, default=dict)),
                ("mana", models.JSONField(blank=True, default=dict)),
                ("specialities", models.JSONField(blank=True, default=list)),
            ],
            bases=("characters.character",),
        ),
        sheet_from_character("roll_and_keep", "RollAndKeepSheet"),
    ]
