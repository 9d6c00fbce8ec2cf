"""The session ledger for events recorded before it existed: each scene's chain is built from
its events as they are now (a spend may have amended a roll's public data since; from here on an
entry is frozen when its event is recorded)."""

from django.db import migrations


def build_chains(apps, schema_editor):
    # The entry format is the ledger's own (its verifiers check every chain by it).
    from django.contrib.auth import get_user_model

    from tabletop.scenes.ledger import GENESIS, chain_entry, in_chain

    username = get_user_model().USERNAME_FIELD  # a migration's model has no get_username()

    Scene = apps.get_model("scenes", "Scene")
    SceneEvent = apps.get_model("scenes", "SceneEvent")
    for scene in Scene.objects.filter(ledger_head="").iterator():
        head = GENESIS
        chained = []
        events = (
            SceneEvent.objects.filter(scene_id=scene.pk)
            .select_related("actor", "parent")
            .order_by("seq")
        )
        for event in events.iterator(chunk_size=500):
            if not in_chain(event.audience):
                continue
            actor = getattr(event.actor, username) if event.actor is not None else None
            event.ledger, event.ledger_hash = chain_entry(
                event, actor_name=actor, parent=event.parent, prev=head
            )
            head = event.ledger_hash
            chained.append(event)
        if chained:
            SceneEvent.objects.bulk_update(chained, ["ledger", "ledger_hash"], batch_size=500)
            Scene.objects.filter(pk=scene.pk).update(ledger_head=head)


class Migration(migrations.Migration):
    dependencies = [("scenes", "0003_session_ledger")]

    operations = [migrations.RunPython(build_chains, migrations.RunPython.noop)]
