"""The percentile sheet's table, filled with what its campaigns' characters held on ``Character``
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
            name="PercentileSheet",
            fields=[
                (
                    "character",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        parent_link=True,
                        primary_key=True,
                        related_name="percentile_sheet",
                        serialize=False,
                        to="characters.character",
                    ),
                ),
                ("skills", models.JSONField(blank=True, default=list)),
                ("attributes", models.JSONField(blank=True, default=dict)),
                ("quickness", models.SmallIntegerField(default=0)),
                ("mv", models.PositiveSmallIntegerField(default=0, verbose_name="MV")),
                ("total_penalty", models.SmallIntegerField(default=0)),
                (
                    "plot_points",
                    models.PositiveIntegerField(default=0, verbose_name="plot points available"),
                ),
                ("plot_points_total", models.PositiveIntegerField(default=0)),
                ("development_points", models.PositiveIntegerField(default=0)),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("plot_points__lte", models.F("plot_points_total"))),
                        name="plot_points_within_total",
                    )
                ],
            },
            bases=("characters.character",),
        ),
        sheet_from_character("percentile", "PercentileSheet"),
    ]
