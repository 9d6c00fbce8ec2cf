"""The conductor sheet's table, filled with what its campaigns' characters held on ``Character``
(carried here by characters 0002's ``moving``), and emptied back into it backwards."""

import django.db.models.deletion
from django.db import migrations, models

SLUG = "conductor"


def unpack(apps, schema_editor):
    """One sheet row per character of a conductor campaign, with the fields it held."""
    Character = apps.get_model("characters", "Character")
    Sheet = apps.get_model(SLUG, "ConductorSheet")
    own = [f.name for f in Sheet._meta.local_concrete_fields if f.name != "character"]
    for pk, moving in (
        Character.objects.filter(campaign__system=SLUG).values_list("pk", "moving").iterator()
    ):
        values = {name: moving[name] for name in own if name in (moving or {})}
        Sheet(character_id=pk, **values).save_base(raw=True, force_insert=True)


def pack(apps, schema_editor):
    """Each sheet row's fields back onto its character's ``moving``."""
    Character = apps.get_model("characters", "Character")
    Sheet = apps.get_model(SLUG, "ConductorSheet")
    own = [f.name for f in Sheet._meta.local_concrete_fields if f.name != "character"]
    for row in Sheet.objects.values("character_id", *own).iterator():
        pk = row.pop("character_id")
        Character.objects.filter(pk=pk).update(moving=row)


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
        migrations.RunPython(unpack, pack),
    ]
