"""Ending a login ends its live sockets at once: logout, password change, deactivation, deletion.

A socket is authenticated once, when it connects; these prove that whatever ends the login also
closes the open sockets and that not one more frame reaches them.
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.tabletop.security.conftest import (
    assert_ended,
    assert_no_login_socket,
    logged_in,
    open_socket,
    session_socket,
    stored_async,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]

PUBLIC_ROLL = {"command": "roll", "roll_kind": "expression", "expression": "1d1000+100000"}


async def assert_gets_nothing_more(ended, *, roller, scene) -> None:
    """Others keep playing; the ended socket receives nothing and can store nothing."""
    before = await stored_async(scene)
    await roller.send(**PUBLIC_ROLL)
    assert any("event-roll" in frame for frame in await roller.drain())  # the table plays on
    assert await ended.communicator.receive_nothing(timeout=0.5)
    # A command still in flight on the closed socket is ignored, not run as the old user.
    await ended.send(**PUBLIC_ROLL)
    assert await ended.communicator.receive_nothing(timeout=0.5)
    assert await stored_async(scene) == (before[0] + 1, before[1] + 1)  # only the roller's


async def sockets_for(table, *clients):
    result = []
    for client in clients:
        socket = await session_socket(client, table.scene)
        result.append(socket)
    for socket in result:  # presence updates from the later connections
        await socket.drain()
        socket.frames.clear()
    return result


async def test_logout_closes_the_users_sockets_and_nothing_more_arrives(table):
    gm_client, alice_client = (
        await sync_to_async(logged_in)(table.gm),
        await sync_to_async(logged_in)(table.alice),
    )
    gm, alice = await sockets_for(table, gm_client, alice_client)

    response = await sync_to_async(alice_client.post)(reverse("logout"))
    assert response.status_code == 302

    await assert_ended(alice, "logged out")
    await assert_gets_nothing_more(alice, roller=gm, scene=table.scene)
    # The logged-out session cookie opens no new socket either.
    await assert_no_login_socket(table.scene, client=alice_client)
    await gm.close()
    await alice.close()


async def test_logout_leaves_other_users_sockets_open(table):
    gm_client, bob_client = (
        await sync_to_async(logged_in)(table.gm),
        await sync_to_async(logged_in)(table.bob),
    )
    gm, bob = await sockets_for(table, gm_client, bob_client)
    await sync_to_async(gm_client.post)(reverse("logout"))
    await assert_ended(gm, "logged out")
    await bob.send(**PUBLIC_ROLL)
    assert any("event-roll" in frame for frame in await bob.drain())
    assert await gm.communicator.receive_nothing(timeout=0.3)
    await gm.close()
    await bob.close()


async def test_removal_from_the_campaign_ends_the_sockets_and_nothing_more_arrives(table):
    from tabletop.campaigns.actions import member_remove

    gm, bob = await sockets_for(
        table, await sync_to_async(logged_in)(table.gm), await sync_to_async(logged_in)(table.bob)
    )
    await sync_to_async(member_remove)(campaign=table.campaign, actor=table.gm, user=table.bob)
    await assert_ended(bob, "removed")
    await assert_gets_nothing_more(bob, roller=gm, scene=table.scene)
    await gm.close()
    await bob.close()


async def test_password_change_ends_every_open_socket_of_the_user(table):
    here = await sync_to_async(logged_in)(table.alice)
    elsewhere = await sync_to_async(logged_in)(table.alice)  # e.g. a stolen session
    gm = (await sockets_for(table, await sync_to_async(logged_in)(table.gm)))[0]
    alice_here, alice_elsewhere = await sockets_for(table, here, elsewhere)

    response = await sync_to_async(here.post)(
        reverse("password_change"),
        {
            "old_password": "a-long-table-secret",
            "new_password1": "a-brand-new-table-secret",
            "new_password2": "a-brand-new-table-secret",
        },
    )
    assert response.status_code == 302

    for socket in (alice_here, alice_elsewhere):
        await assert_ended(socket, "password changed")
    await assert_gets_nothing_more(alice_elsewhere, roller=gm, scene=table.scene)
    # Django kept the changing session and invalidated the other: so do the sockets.
    await assert_no_login_socket(table.scene, client=elsewhere)
    accepted, fresh = await open_socket(table.scene, client=here)
    assert accepted
    await fresh.disconnect()
    for socket in (gm, alice_here, alice_elsewhere):
        await socket.close()


async def test_saving_a_user_without_a_credential_change_keeps_the_sockets(table):
    alice = (await sockets_for(table, await sync_to_async(logged_in)(table.alice)))[0]

    def rename():
        user = get_user_model().objects.get(pk=table.alice.pk)
        user.first_name = "Alice"
        user.save()

    await sync_to_async(rename)()
    await alice.send(**PUBLIC_ROLL)
    assert any("event-roll" in frame for frame in await alice.drain())
    await alice.close()


@pytest.mark.parametrize("how", ["deactivate", "delete"])
async def test_deactivating_or_deleting_a_user_ends_their_sockets(table, how):
    gm = (await sockets_for(table, await sync_to_async(logged_in)(table.gm)))[0]
    bob = (await sockets_for(table, await sync_to_async(logged_in)(table.bob)))[0]

    def end_account():
        user = get_user_model().objects.get(pk=table.bob.pk)
        if how == "deactivate":
            user.is_active = False
            user.save()
        else:
            user.delete()

    await sync_to_async(end_account)()
    await assert_ended(bob, "account deactivated" if how == "deactivate" else "account deleted")
    await assert_gets_nothing_more(bob, roller=gm, scene=table.scene)
    await gm.close()
    await bob.close()
