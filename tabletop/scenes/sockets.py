"""Ending a user's open scene sockets (removed from a campaign, logged out).

Kept free of campaign imports so the campaigns actions can call it without an import cycle.
"""

from __future__ import annotations

import hashlib

from tabletop.scenes import command_threads


def user_sockets_group(user_id: int) -> str:
    """Every scene socket of one user, whatever the scene."""
    return f"user-{user_id}"


def session_mark(session_key: str | None) -> str:
    """What a socket keeps of the login session that opened it: a hash, so the key itself never
    travels over the channel layer."""
    return hashlib.sha256((session_key or "").encode()).hexdigest()[:32] if session_key else ""


def end_user_sockets(
    *,
    user_id: int,
    campaign_id: int | None = None,
    reason: str = "",
    sessions: list[str] | None = None,
    except_session: str | None = None,
) -> None:
    """Close the user's sockets: only those on ``campaign_id``'s scenes when given, only those
    opened by the login ``sessions`` (keys) when given, all but those of ``except_session``
    (a key: the page that asked) when given.

    Call it after commit: the sockets close at once, so nothing more reaches them.
    """
    message: dict = {"type": "session.end", "campaign_id": campaign_id, "reason": reason}
    if sessions is not None:
        message["sessions"] = [session_mark(key) for key in sessions]
    if except_session:
        message["except_session"] = session_mark(except_session)
    command_threads.group_send(user_sockets_group(user_id), message)
