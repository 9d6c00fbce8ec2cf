from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("characters", "0002_sheet_fields_leave_character"),
    ]

    operations = [
        migrations.RemoveField(
            model_name="character",
            name="moving",
        ),
    ]
