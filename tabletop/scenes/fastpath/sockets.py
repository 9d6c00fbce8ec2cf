"""The statements a scene socket runs on the event loop (``onloop``, PostgreSQL): its opening
(the login session, then the user with the scene's campaign and their membership, then the
scene's newest seq for its hello) and its presence (its row written when it opens, deleted when
it closes; the scene's list of who is present).

Each is built from the models once per process (a new column is read like any other), so a
socket compiles nothing per opening: the ORM compiled each afresh, and a table restart opens
hundreds of sockets at once (bench/README.md, "Issue 37, the hot path as a design step"). The
callers run them (``opening``, ``actions.scenes``, ``selectors``); only the SQL is made here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib import auth
from django.contrib.sessions.models import Session
from django.db import connections

from tabletop.campaigns.models import Campaign
from tabletop.scenes.fastpath.statements import converters, member_exists
from tabletop.scenes.models import Presence, Scene


@dataclass(frozen=True)
class OpeningPlan:
    """A socket's opening statements and what reads their rows: the session store that decodes
    the session's data, the user model with its fields (in the opening statement's order) and
    their converters."""

    store_class: Any
    user_model: Any
    user_fields: list[Any]
    user_converters: Any
    session_sql: str
    opening_sql: str
    newest_seq_sql: str


@functools.cache
def opening_plan() -> OpeningPlan:
    """The opening's statements, built once from the models (PostgreSQL's dialect)."""
    connection = connections["default"]
    quote = connection.ops.quote_name
    user_model = auth.get_user_model()
    user_meta, session, scene, campaign = (
        user_model._meta,
        Session._meta,
        Scene._meta,
        Campaign._meta,
    )
    user_fields = list(user_meta.concrete_fields)
    session_sql = (
        f"SELECT {quote(session.get_field('session_data').column)} "
        f"FROM {quote(session.db_table)} "
        f"WHERE {quote(session.get_field('session_key').column)} = %s "
        f"AND {quote(session.get_field('expire_date').column)} > %s"
    )
    user_columns = ", ".join(f"u.{quote(f.column)}" for f in user_fields)
    opening_sql = (
        f"SELECT {user_columns}, c.{quote(campaign.pk.column)}, "
        f"c.{quote(campaign.get_field('gm').column)}, {member_exists(connection)} "
        f"FROM {quote(user_meta.db_table)} u "
        f"LEFT JOIN {quote(scene.db_table)} s ON s.{quote(scene.pk.column)} = %s "
        f"LEFT JOIN {quote(campaign.db_table)} c "
        f"ON c.{quote(campaign.pk.column)} = s.{quote(scene.get_field('campaign').column)} "
        f"WHERE u.{quote(user_meta.pk.column)} = %s"
    )
    newest_seq_sql = (
        f"SELECT {quote(scene.get_field('last_seq').column)} FROM {quote(scene.db_table)} "
        f"WHERE {quote(scene.pk.column)} = %s"
    )
    return OpeningPlan(
        store_class=import_module(settings.SESSION_ENGINE).SessionStore,
        user_model=user_model,
        user_fields=user_fields,
        user_converters=converters(connection, [("u", f) for f in user_fields]),
        session_sql=session_sql,
        opening_sql=opening_sql,
        newest_seq_sql=newest_seq_sql,
    )


@functools.cache
def presence_row_sql() -> tuple[str, str]:
    """The presence row's INSERT (as ``actions.presence_join``'s) and DELETE, built from the
    model once. A channel name is new for every socket: a plain INSERT, no read first."""
    quote = connections["default"].ops.quote_name
    meta = Presence._meta
    table = quote(meta.db_table)
    channel = quote(meta.get_field("channel_name").column)
    columns = ", ".join(
        quote(meta.get_field(name).column) for name in ("scene", "user", "channel_name")
    )
    insert = (
        f"INSERT INTO {table} ({columns}, {quote(meta.get_field('last_seen').column)}) "
        "VALUES (%s, %s, %s, %s)"
    )
    return insert, f"DELETE FROM {table} WHERE {channel} = %s"


@functools.cache
def presence_list_sql() -> str:
    """``selectors.presence_on_loop``'s statement, built from the models once: the scene's GM
    on every row, with each fresh presence on the scene (none: one row, its presence NULL,
    which tells a scene with no one present from a scene that is gone)."""
    quote = connections["default"].ops.quote_name
    scene, campaign, presence = Scene._meta, Campaign._meta, Presence._meta
    user = auth.get_user_model()._meta

    def col(meta: Any, name: str) -> str:
        return quote(meta.get_field(name).column)

    return (
        f"SELECT c.{col(campaign, 'gm')}, p.{col(presence, 'user')}, "
        f"u.{col(user, user.model.USERNAME_FIELD)}, p.{col(presence, 'rtt_ms')} "
        f"FROM {quote(scene.db_table)} s "
        f"JOIN {quote(campaign.db_table)} c ON c.{quote(campaign.pk.column)} = "
        f"s.{col(scene, 'campaign')} "
        f"LEFT JOIN {quote(presence.db_table)} p ON p.{col(presence, 'scene')} = "
        f"s.{quote(scene.pk.column)} AND p.{col(presence, 'last_seen')} >= %s "
        f"LEFT JOIN {quote(user.db_table)} u ON u.{quote(user.pk.column)} = "
        f"p.{col(presence, 'user')} "
        f"WHERE s.{quote(scene.pk.column)} = %s "
        f"ORDER BY u.{col(user, user.model.USERNAME_FIELD)}"
    )
