"""A user's login sessions: written when a login starts, listed on the account page, ended one
by one or all but this one ("sign out everywhere else"), their open scene sockets closed at once.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.contrib.sessions.models import Session
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from tabletop.accounts.models import LoginSession
from tabletop.accounts.throttle import NO_ADDRESS, client_address
from tabletop.scenes.sockets import end_user_sockets


def session_started(*, request: HttpRequest, user: Any) -> LoginSession | None:
    """Note the login session ``request`` now carries (its key is new: ``login`` cycles it)."""
    key = getattr(getattr(request, "session", None), "session_key", None)
    if not key:
        return None
    address = client_address(request)
    found, _ = LoginSession.objects.update_or_create(
        session_key=key,
        defaults={
            "user": user,
            "started_at": timezone.now(),
            "address": address if address != NO_ADDRESS else "",
            "device": request.META.get("HTTP_USER_AGENT", "")[:200],
        },
    )
    return found


def session_key_changed(*, user: Any, old_key: str | None, new_key: str | None) -> None:
    """The same login under a new key (a password change cycles it)."""
    if old_key and new_key and old_key != new_key:
        LoginSession.objects.filter(user=user, session_key=old_key).update(session_key=new_key)


def live_sessions(*, user: Any) -> list[LoginSession]:
    """The user's sessions that can still be used, newest first; rows of sessions that expired
    or were flushed go."""
    rows = list(LoginSession.objects.filter(user=user))
    alive = set(
        Session.objects.filter(
            session_key__in=[r.session_key for r in rows], expire_date__gt=timezone.now()
        ).values_list("session_key", flat=True)
    )
    gone = [r.pk for r in rows if r.session_key not in alive]
    if gone:
        LoginSession.objects.filter(pk__in=gone).delete()
    return [r for r in rows if r.session_key in alive]


@transaction.atomic
def sessions_end(*, user: Any, ids: list[int], reason: str) -> int:
    """End these login sessions of ``user`` (``LoginSession`` ids; others' are ignored): each is
    logged out at once, and its scene sockets close after commit, each page saying why."""
    mine = list(
        LoginSession.objects.filter(user=user, pk__in=ids).values_list("session_key", flat=True)
    )
    if not mine:
        return 0
    Session.objects.filter(session_key__in=mine).delete()
    LoginSession.objects.filter(session_key__in=mine).delete()
    transaction.on_commit(partial(end_user_sockets, user_id=user.pk, sessions=mine, reason=reason))
    return len(mine)


@transaction.atomic
def sessions_end_all_but(*, user: Any, keep: str | None, reason: str) -> int:
    """End every login session of ``user`` but ``keep`` (the page that asked), and close every
    socket those opened, sessions noted here or not."""
    others = LoginSession.objects.filter(user=user).exclude(session_key=keep or "")
    keys = list(others.values_list("session_key", flat=True))
    Session.objects.filter(session_key__in=keys).delete()
    others.delete()
    transaction.on_commit(
        partial(end_user_sockets, user_id=user.pk, except_session=keep, reason=reason)
    )
    return len(keys)


def on_logged_in(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if request is not None:
        session_started(request=request, user=user)


def on_logged_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    key = getattr(getattr(request, "session", None), "session_key", None)
    if key:
        LoginSession.objects.filter(session_key=key).delete()
