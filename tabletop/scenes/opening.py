"""A scene socket's opening: who opens it (their login session), and what they may see of the
scene, authorised once; then where the scene's log stands, for the socket's hello (what it
missed is the feed's to read: ``feed.replay``).

On PostgreSQL these run on the event loop (``fastpath.onloop``): the session's row, then the
user with the scene's campaign and their membership in one statement, then the scene's newest
seq at hello. Nothing goes to a database thread, and nothing is compiled by the ORM per socket
(a table restart opens hundreds at once: bench/README.md, "Issue 37, the hot path as a design
step").
The session is checked as Django checks it (``django.contrib.auth.get_user``): its user, its
backend, its hash against the user's password. Whatever that check would have to change (a
hash that verifies only with an old secret, which Django rotates; a stale session, which it
flushes) or cannot know here (a backend other than Django's model backend, another session
engine) is left to Django itself on the database thread, as on SQLite, where everything is.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib import auth
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.db import connections
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from tabletop.scenes import selectors
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.fastpath import onloop, sockets
from tabletop.scenes.fastpath.statements import converted
from tabletop.scenes.models import Scene

#: The session engine and the backend whose checks are made here; any other is Django's.
DATABASE_SESSIONS = "django.contrib.sessions.backends.db"
MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


@dataclass(frozen=True)
class Opening:
    """Who opened the socket (``AnonymousUser`` without a valid login) and, when they may see
    the scene, as which viewer and in which campaign (else None)."""

    user: Any
    access: tuple[Viewer, int] | None


async def open_scene(session: Any, scene_id: int) -> Opening:
    """The socket's user and access to ``scene_id``, from its login ``session`` (the scope's)."""
    if onloop.available() and settings.SESSION_ENGINE == DATABASE_SESSIONS:
        found = await _on_loop(session.session_key, scene_id)
        if found is not None:
            return found
    return await database_sync_to_async(_on_thread)(session, scene_id)


def _on_thread(session: Any, scene_id: int) -> Opening:
    """Django's own check of the session (it may rotate or flush it), then the scene's read."""
    user = auth.get_user(SimpleNamespace(session=session))
    if not user.is_authenticated:
        return Opening(user, None)
    return Opening(user, selectors.scene_access(scene_id=scene_id, user=user))


async def _on_loop(session_key: str | None, scene_id: int) -> Opening | None:
    """The opening read on the loop, or None when Django must decide (``_on_thread``)."""
    if not session_key:
        return Opening(AnonymousUser(), None)  # no cookie: Django reads nothing either
    plan = sockets.opening_plan()
    rows = await onloop.fetch(plan.session_sql, [session_key, timezone.now()])
    if not rows:
        return Opening(AnonymousUser(), None)  # no such session, or it expired
    data = plan.store_class().decode(rows[0][0])
    try:
        user_id = plan.user_model._meta.pk.to_python(data[SESSION_KEY])
        backend = data[BACKEND_SESSION_KEY]
    except KeyError:
        return Opening(AnonymousUser(), None)  # a session without a login
    except ValidationError:
        return None
    if backend not in settings.AUTHENTICATION_BACKENDS:
        return Opening(AnonymousUser(), None)
    if backend != MODEL_BACKEND:
        return None
    # In the statement's order: the membership's user, the scene, the user.
    rows = await onloop.fetch(plan.opening_sql, [user_id, scene_id, user_id])
    if not rows:
        return Opening(AnonymousUser(), None)  # the user is gone
    row = rows[0]
    fields = plan.user_fields
    connection = connections["default"]
    user = plan.user_model.from_db(
        "default",
        [f.attname for f in fields],
        converted(row[: len(fields)], plan.user_converters, connection),
    )
    if getattr(user, "is_active", True) is False:
        return Opening(AnonymousUser(), None)  # ModelBackend.user_can_authenticate
    session_hash = data.get(HASH_SESSION_KEY)
    if not (session_hash and constant_time_compare(session_hash, user.get_session_auth_hash())):
        return None  # Django flushes it, or rotates it when an old secret verifies it
    campaign_id, gm_id, member = row[len(fields) :]
    if campaign_id is None or not member:
        return Opening(user, None)
    return Opening(user, (Viewer(user_id=user.pk, is_gm=gm_id == user.pk), campaign_id))


async def newest_seq(scene_id: int) -> int:
    """The scene's newest seq now (``Scene.DoesNotExist`` when it is gone)."""
    if not onloop.available():
        return await database_sync_to_async(selectors.scene_last_seq)(scene_id=scene_id)
    rows = await onloop.fetch(sockets.opening_plan().newest_seq_sql, [scene_id])
    if not rows:
        raise Scene.DoesNotExist(f"scene {scene_id} is gone")
    return rows[0][0]
