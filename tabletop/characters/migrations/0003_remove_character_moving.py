"""The carrier of the move (characters 0002's ``moving``) goes, once each system's 0001 has put
its characters' values in its sheet table. A character of a system no installed app keeps (its
values would be lost) stops the migration with a clear error instead."""

from django.db import migrations


def every_value_has_a_home(apps, schema_editor):
    Character = apps.get_model("characters", "Character")
    kept = {model._meta.app_label for model in apps.get_models()}
    stranded = (
        Character.objects.exclude(moving={})
        .exclude(campaign__system__in=kept)
        .values_list("campaign__system", flat=True)
        .distinct()
    )
    if stranded:
        raise RuntimeError(
            "Characters of these systems would lose their sheets, as no installed app keeps "
            f"them: {', '.join(sorted(stranded))}. Install those systems' apps and migrate again."
        )


class Migration(migrations.Migration):
    dependencies = [
        ("characters", "0002_sheet_fields_leave_character"),
    ]

    operations = [
        migrations.RunPython(every_value_has_a_home, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name="character",
            name="moving",
        ),
    ]
