"""Unread counts for the page header and the campaign list (tabletop/notify/selectors.py), and
when a notification came, in words."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django import template
from django.utils import timezone
from django.utils.timesince import timesince

from tabletop.notify import selectors

register = template.Library()


@register.simple_tag(takes_context=True)
def unseen_notifications(context: Any) -> int:
    """The signed-in member's notifications not seen yet (read once per page)."""
    request = context.get("request")
    if request is None:
        return 0
    if not hasattr(request, "_unseen_notifications"):
        request._unseen_notifications = selectors.unseen_notifications(user=request.user)
    return request._unseen_notifications


@register.simple_tag(takes_context=True)
def unread_in(context: Any, what: str, pk: int) -> int:
    """Unread events for the member in a campaign (``what`` "campaign") or a scene."""
    request = context.get("request")
    if request is None or not request.user.is_authenticated:
        return 0
    key = f"_unread_{what}"
    if not hasattr(request, key):
        if what == "campaign":
            counts = selectors.unread_by_campaign(user=request.user)
        else:
            counts = selectors.unread(user=request.user)
        setattr(request, key, counts)
    return getattr(request, key).get(pk, 0)


@register.filter
def ago(moment: datetime) -> str:
    """How long ago, in words: "just now" within the minute (not "0 minutes ago")."""
    if timezone.now() - moment < timedelta(minutes=1):
        return "just now"
    return f"{timesince(moment)} ago"
