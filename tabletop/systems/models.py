"""What a system's ``models.py`` builds its sheet model on: loaded with the models, before the
registry is ready, so it cannot import the plugin API (tabletop/systems/api.py) as the rest of
a system does.

A sheet model extends ``Character`` by multi-table inheritance: the system's table holds one row
per character of its campaigns, keyed to the character's row by ``sheet_link()``, with the
system's own fields, currencies and harm. Generic code reaches it through ``System.sheet_model``
and ``System.currencies``, never by name.
"""

from __future__ import annotations

from django.db import models

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


__all__ = ["Character", "models", "sheet_link"]
