"""Each system's fields leave ``Character`` for the system's own sheet model (issue 28).

They travel in ``moving``, one JSON object per character, because a system's sheet model (a
subclass of ``Character``) may not declare a field its parent still has: this migration packs
and drops the old columns, each system's ``0001`` makes its table and unpacks its own fields,
and ``0003`` drops ``moving``. Backwards, the same steps in reverse order, values unchanged.
"""

from django.db import migrations, models

#: The columns ``Character`` held for the five systems (0001_initial).
MOVED = (
    "attributes",
    "skills",
    "specialities",
    "mana",
    "resources",
    "training_perks",
    "difficulty",
    "quickness",
    "mv",
    "total_penalty",
    "bennies",
    "plot_points",
    "plot_points_total",
    "development_points",
    "hits",
    "lasting_hits",
)


def pack(apps, schema_editor):
    Character = apps.get_model("characters", "Character")
    for row in Character.objects.values("pk", *MOVED).iterator():
        pk = row.pop("pk")
        Character.objects.filter(pk=pk).update(moving=row)


def unpack(apps, schema_editor):
    Character = apps.get_model("characters", "Character")
    for pk, moving in Character.objects.values_list("pk", "moving").iterator():
        values = {name: moving[name] for name in MOVED if name in (moving or {})}
        if values:
            Character.objects.filter(pk=pk).update(**values)


class Migration(migrations.Migration):
    dependencies = [("characters", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="character",
            name="moving",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(pack, unpack),
        migrations.RemoveConstraint(model_name="character", name="plot_points_within_total"),
        *(migrations.RemoveField(model_name="character", name=name) for name in MOVED),
    ]
