"""The ledger head as the scene page shows it."""

from __future__ import annotations

from django import template

from tabletop.scenes.ledger import GENESIS

register = template.Library()


@register.filter
def ledger_started(head: str | None) -> bool:
    """Whether the chain has an entry: an empty scene's head is blank or the all-zero start."""
    return bool(head) and head != GENESIS
