"""The any-game sheet table: the table's currency (never below zero: the column's CHECK)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("characters", "0005_saved_roll"),
    ]

    operations = [
        migrations.CreateModel(
            name="AnyGameSheet",
            fields=[
                (
                    "character",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        parent_link=True,
                        primary_key=True,
                        related_name="any_game_sheet",
                        serialize=False,
                        to="characters.character",
                    ),
                ),
                ("table_currency", models.PositiveIntegerField(default=0)),
            ],
            bases=("characters.character",),
        ),
    ]
