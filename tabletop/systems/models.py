"""What a system's ``models.py`` builds its sheet model on: loaded with the models, before the
registry is ready, so it cannot import the plugin API (tabletop/systems/api.py) as the rest of
a system does.

A sheet model extends ``Character`` by multi-table inheritance: the system's table holds one row
per character of its campaigns, keyed to the character's row by ``sheet_link()``, with the
system's own fields, currencies and harm. Generic code reaches it through ``System.sheet_model``
and ``System.currencies``, never by name.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

from tabletop.characters.models import Character


def sheet_link(related_name: str) -> models.OneToOneField:
    """The sheet row's key: the character's own (``character_id``), deleted with it."""
    return models.OneToOneField(
        Character,
        on_delete=models.CASCADE,
        parent_link=True,
        primary_key=True,
        related_name=related_name,
    )


def sheet_from_character(slug: str, model_name: str) -> migrations.RunPython:
    """The step of a system's first migration that fills its sheet table from what its
    campaigns' characters held on ``Character`` (carried in ``moving`` by characters 0002,
    run before characters 0003 drops it), and backwards empties the table into ``moving`` again.
    On the migration's historical models only: one sheet row per character of a ``slug``
    campaign, with the fields it held (the model's defaults for any it did not)."""

    def own_fields(sheet: Any) -> list[str]:
        return [f.name for f in sheet._meta.local_concrete_fields if f.name != "character"]

    def unpack(apps: Any, schema_editor: Any) -> None:
        character = apps.get_model("characters", "Character")
        sheet = apps.get_model(slug, model_name)
        own = own_fields(sheet)
        rows = character.objects.filter(campaign__system=slug).values_list("pk", "moving")
        for pk, moving in rows.iterator():
            values = {name: moving[name] for name in own if name in (moving or {})}
            sheet(character_id=pk, **values).save_base(raw=True, force_insert=True)

    def pack(apps: Any, schema_editor: Any) -> None:
        character = apps.get_model("characters", "Character")
        sheet = apps.get_model(slug, model_name)
        for row in sheet.objects.values("character_id", *own_fields(sheet)).iterator():
            character.objects.filter(pk=row.pop("character_id")).update(moving=row)

    return migrations.RunPython(unpack, pack)


__all__ = ["Character", "models", "sheet_from_character", "sheet_link"]
