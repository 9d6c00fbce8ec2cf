"""Mentions in a chat line or an emote: ``@name`` (a member's username or one of their
characters' names) or ``@"Mira Vex"`` for a name with spaces, resolved on the server when the
line is recorded (the members' ids kept in its data, under its audience, so ``visibility()``
covers them). A name that is nobody's stays plain text."""

from __future__ import annotations

import re
from typing import Any

from tabletop.campaigns.models import Membership
from tabletop.characters.models import Character

#: ``@"a name with spaces"`` or ``@name`` (letters, digits and . _ - ' , stopping before
#: trailing punctuation: "@bob," names bob).
MENTION = re.compile(r"""(?<![\w@])@(?:"([^"\n]{1,100})"|([\w][\w.'-]{0,99}))""")

#: A line names this many people at most: a thousand @s make no more work than a table.
MOST = 50


def named(text: str) -> list[str]:
    """The names a line mentions, as written (lower case), each once."""
    names: dict[str, None] = {}
    for quoted, bare in MENTION.findall(text):
        name = (quoted or bare.rstrip(".'-")).strip().casefold()
        if name:
            names[name] = None
        if len(names) >= MOST:
            break
    return list(names)


def mentioned(campaign: Any, text: str, *, author_id: int | None = None) -> list[int]:
    """The ids of the campaign's members a line mentions (by username or by one of their
    characters' names), the author left out; sorted. Empty when it mentions nobody."""
    names = set(named(text))
    if not names:
        return []
    ids: set[int] = set()
    members = list(
        Membership.objects.filter(campaign=campaign).values_list("user_id", "user__username")
    )
    for user_id, username in members:
        if username.casefold() in names:
            ids.add(user_id)
    member_ids = {user_id for user_id, _ in members}
    owners = Character.objects.filter(campaign=campaign, owner_id__in=member_ids).values_list(
        "owner_id", "name"
    )
    for owner_id, name in owners:
        if name.casefold() in names:
            ids.add(owner_id)
    ids.discard(author_id)
    return sorted(ids)
