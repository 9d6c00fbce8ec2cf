"""Ending a user's open scene sockets (removed from a campaign, logged out).

Kept free of campaign imports so the campaigns actions can call it without an import cycle.
"""

from __future__ import annotations

from tabletop.scenes import command_threads


def user_sockets_group(user_id: int) -> str:
    """Every scene socket of one user, whatever the scene."""
    return f"user-{user_id}"


def end_user_sockets(*, user_id: int, campaign_id: int | None = None, reason: str = "") -> None:
    """Close the user's sockets (only those on ``campaign_id``'s scenes when given).

    Call it after commit: the sockets close at once, so nothing more reaches them.
    """
    command_threads.group_send(
        user_sockets_group(user_id),
        {"type": "session.end", "campaign_id": campaign_id, "reason": reason},
    )
