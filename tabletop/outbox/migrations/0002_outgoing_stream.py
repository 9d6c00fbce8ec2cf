from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("outbox", "0001_outbox"),
    ]

    operations = [
        migrations.AddField(
            model_name="outgoing",
            name="stream",
            field=models.CharField(blank=True, default="", max_length=40),
        ),
        migrations.AddIndex(
            model_name="outgoing",
            index=models.Index(
                condition=models.Q(("dropped_at__isnull", True), ("sent_at__isnull", True)),
                fields=["stream", "id"],
                name="outgoing_stream_pending",
            ),
        ),
    ]
