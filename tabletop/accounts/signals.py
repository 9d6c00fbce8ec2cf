"""Ending a user's open scene sockets when their session or credentials end.

A socket is authenticated once, when it connects (Channels reads the session then). So whatever
ends a login must also close the sockets that login opened, or they would keep receiving frames:

- logging out;
- a password change (Django keeps the changing session valid but invalidates every other one; an
  open socket would not notice, so all of the user's sockets close and the tab that changed the
  password reconnects by reloading);
- deactivating or deleting the user.

Each waits for the commit (a rolled-back change ends nothing) and then closes every socket of the
user, on every scene and every server process (the channel layer's per-user group).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from tabletop.scenes.sockets import end_user_sockets


def _end_after_commit(user_id: int, reason: str) -> None:
    transaction.on_commit(partial(end_user_sockets, user_id=user_id, reason=reason))


def on_logged_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if user is None or user.pk is None:
        return  # an anonymous visitor "logged out": no sockets to end
    _end_after_commit(user.pk, "logged out")


def on_user_pre_save(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    """End the sockets when this save changes the password or deactivates the user."""
    if instance.pk is None or instance._state.adding:
        return  # a new user has no sockets yet
    watched = {"password", "is_active"}
    if update_fields is not None and not watched & set(update_fields):
        return  # e.g. the last_login update on every login: no query
    before = (
        get_user_model()
        ._default_manager.filter(pk=instance.pk)
        .values("password", "is_active")
        .first()
    )
    if before is None:
        return
    if before["password"] != instance.password:
        _end_after_commit(instance.pk, "password changed")
    elif before["is_active"] and not getattr(instance, "is_active", True):
        _end_after_commit(instance.pk, "account deactivated")


def on_user_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    if instance.pk is not None:
        _end_after_commit(instance.pk, "account deleted")
