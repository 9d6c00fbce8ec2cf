"""Scene sockets refuse a foreign or missing Origin before any consumer runs (no cross-site
websocket hijacking with a victim's cookie), and production never allows a wildcard host."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from tabletop.scenes.models import Presence
from tests.tabletop.project.test_settings import PRODUCTION_ENV, run_manage
from tests.tabletop.security.conftest import assert_no_login_socket, logged_in, open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]

REFUSED_ORIGINS = [
    None,  # no Origin header at all (not a browser, or a stripped header)
    b"http://evil.example",
    b"https://evil.example",
    b"null",  # sandboxed iframes and file:// pages send this
    b"http://127.0.0.1.evil.example",  # our host as a prefix of theirs
    b"http://evil.example/http://127.0.0.1",
    b"",
    b"127.0.0.1",  # no scheme: no hostname to match
]


async def test_foreign_or_missing_origin_is_refused_even_with_a_valid_session(table):
    client = await sync_to_async(logged_in)(table.alice)
    for origin in REFUSED_ORIGINS:
        accepted, communicator = await open_socket(table.scene, client=client, origin=origin)
        assert not accepted, origin
        await communicator.disconnect()
    # Refused before the consumer: no presence row, so nobody saw "alice" join.
    assert not await sync_to_async(Presence.objects.exists)()
    # The same session from an allowed Origin is accepted: the refusals were the Origin's doing.
    for origin in (b"http://127.0.0.1", b"http://localhost:8000"):
        accepted, communicator = await open_socket(table.scene, client=client, origin=origin)
        assert accepted, origin
        await communicator.disconnect()


async def test_an_allowed_origin_without_a_session_is_refused(table):
    await assert_no_login_socket(table.scene, client=None)
    assert not await sync_to_async(Presence.objects.exists)()


def test_production_socket_origins_are_exactly_the_configured_hosts():
    # The validator the deployed ASGI app builds, from the production environment; a '*' there
    # is refused at start-up (tests/tabletop/project/test_settings.py).
    code = (
        "from tabletop.asgi import application; "
        "print(application.application_mapping['websocket'].allowed_origins)"
    )
    result = run_manage("shell", "-c", code, env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "['table.example.org']"
    wildcard = run_manage("check", env=dict(PRODUCTION_ENV, ALLOWED_HOSTS="table.example.org, *"))
    assert wildcard.returncode != 0
    assert "may not contain '*'" in wildcard.stderr
