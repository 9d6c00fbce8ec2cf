import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.core.management import call_command
from django.db import migrations, models


def create_cache_table(apps, schema_editor):
    # The limits' counters (tabletop/accounts/throttle.py) use the database cache when no Redis
    # is configured; `migrate` makes its table, so `make run` needs no other step.
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    initial = True

    dependencies = [migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        migrations.CreateModel(
            name="LoginSession",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("session_key", models.CharField(max_length=40, unique=True)),
                ("started_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("address", models.CharField(blank=True, max_length=45)),
                ("device", models.CharField(blank=True, max_length=200)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="login_sessions",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={"ordering": ["-started_at"]},
        ),
        migrations.RunPython(create_cache_table, migrations.RunPython.noop),
    ]
