"""The account page: email, login sessions (each ended at once, with its open scenes), the
download of what is one's own, and leaving (deleting the account) with the campaign playable and
every ledger verifying as before."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse

from tabletop.accounts.models import LoginSession
from tabletop.characters.models import Character, SavedRoll
from tabletop.scenes import actions as scene_actions
from tabletop.scenes import ledger
from tabletop.scenes.actions.talk import chat
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.selectors import viewer_for
from tests.support.tables import make_table
from tests.tabletop.scenes.conftest import close_db_after  # noqa: F401 - the sockets' tests
from tests.tabletop.security.conftest import (
    assert_ended,
    assert_no_login_socket,
    open_socket,
    session_socket,
)

PASSWORD = "a-long-table-secret"


def logged_in_as(user, device: str = "Firefox on a laptop") -> Client:
    client = Client(HTTP_USER_AGENT=device)
    assert client.post(reverse("login"), {"username": user.username, "password": PASSWORD})
    assert "_auth_user_id" in client.session
    return client


def is_logged_in(client: Client) -> bool:
    return client.get(reverse("account")).status_code == 200


# --- email ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_email_is_changed_and_an_address_in_use_refused(django_user_model):
    sam = django_user_model.objects.create_user("sam", password=PASSWORD)
    django_user_model.objects.create_user("ines", email="ines@example.org", password=PASSWORD)
    client = logged_in_as(sam)
    refused = client.post(
        reverse("account_email"), {"email": "INES@example.org", "password": PASSWORD}
    )
    assert refused.status_code == 200
    assert "Another account uses that address." in refused.content.decode()
    sam.refresh_from_db()
    assert sam.email == ""
    saved = client.post(
        reverse("account_email"), {"email": "sam@example.org", "password": PASSWORD}
    )
    assert saved.status_code == 302
    sam.refresh_from_db()
    assert sam.email == "sam@example.org"
    bad = client.post(reverse("account_email"), {"email": "not an address", "password": PASSWORD})
    assert bad.status_code == 200 and "valid email" in bad.content.decode()


@pytest.mark.django_db
def test_changing_the_email_asks_for_the_password_and_a_wrong_one_changes_nothing(
    django_user_model, mailoutbox, django_capture_on_commit_callbacks
):
    sam = django_user_model.objects.create_user("sam", email="sam@example.org", password=PASSWORD)
    client = logged_in_as(sam)
    page = client.get(reverse("account")).content.decode()
    assert 'name="password"' in page and 'autocomplete="current-password"' in page
    with django_capture_on_commit_callbacks(execute=True):
        wrong = client.post(
            reverse("account_email"), {"email": "thief@example.net", "password": "a-guess"}
        )
        missing = client.post(reverse("account_email"), {"email": "thief@example.net"})
    assert wrong.status_code == missing.status_code == 200
    assert "That is not your password." in wrong.content.decode()
    assert "This field is required." in missing.content.decode()
    sam.refresh_from_db()
    assert sam.email == "sam@example.org" and mailoutbox == []


@pytest.mark.django_db
def test_the_old_address_is_told_of_the_change_in_plain_text(
    django_user_model, mailoutbox, django_capture_on_commit_callbacks
):
    sam = django_user_model.objects.create_user("sam", email="sam@example.org", password=PASSWORD)
    client = logged_in_as(sam)
    with django_capture_on_commit_callbacks(execute=True):
        saved = client.post(
            reverse("account_email"), {"email": "sam@new.example.net", "password": PASSWORD}
        )
    assert saved.status_code == 302
    sam.refresh_from_db()
    assert sam.email == "sam@new.example.net"
    [sent] = mailoutbox
    assert sent.to == ["sam@example.org"]  # the old address, the one that may not know
    assert sent.content_subtype == "plain" and not getattr(sent, "alternatives", None)
    assert "Tabletop" in sent.subject and "Tabletop" in sent.body
    assert "sam@new.example.net" in sent.body and "sam" in sent.body
    assert "If it wasn't you" in sent.body
    assert "http://testserver/accounts/me/" in sent.body or reverse("account") in sent.body
    # Saving the same address again, or a first address, tells no old one.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("account_email"), {"email": "sam@new.example.net", "password": PASSWORD}
        )
    newcomer = django_user_model.objects.create_user("ines", password=PASSWORD)
    with django_capture_on_commit_callbacks(execute=True):
        logged_in_as(newcomer).post(
            reverse("account_email"), {"email": "ines@example.org", "password": PASSWORD}
        )
    assert len(mailoutbox) == 1


# --- sessions ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_page_lists_each_login_and_ends_another_at_once(django_user_model):
    sam = django_user_model.objects.create_user("sam", password=PASSWORD)
    laptop = logged_in_as(sam, "Firefox on a laptop")
    phone = logged_in_as(sam, "Safari on a phone")
    page = laptop.get(reverse("account")).content.decode()
    assert "This browser" in page and "Safari on a phone" in page
    assert page.count("Firefox on a laptop") == 1  # named once, as this browser
    phone_row = LoginSession.objects.get(device="Safari on a phone")
    assert laptop.post(reverse("account_session_end", args=[phone_row.pk])).status_code == 302
    assert not is_logged_in(phone) and is_logged_in(laptop)
    assert not Session.objects.filter(session_key=phone_row.session_key).exists()


@pytest.mark.django_db
def test_another_users_session_is_not_theirs_to_end(django_user_model):
    sam = django_user_model.objects.create_user("sam", password=PASSWORD)
    ines = django_user_model.objects.create_user("ines", password=PASSWORD)
    sam_client, ines_client = logged_in_as(sam), logged_in_as(ines)
    ines_row = LoginSession.objects.get(user=ines)
    sam_client.post(reverse("account_session_end", args=[ines_row.pk]))
    assert is_logged_in(ines_client)


@pytest.mark.django_db
def test_sign_out_everywhere_else_keeps_this_browser(django_user_model):
    sam = django_user_model.objects.create_user("sam", password=PASSWORD)
    here = logged_in_as(sam)
    others = [logged_in_as(sam, f"device {n}") for n in range(3)]
    response = here.post(reverse("account_sessions_end"), follow=True)
    assert "3 sessions ended" in response.content.decode()
    assert is_logged_in(here)
    assert not any(is_logged_in(c) for c in others)
    assert list(LoginSession.objects.values_list("user__username", flat=True)) == ["sam"]


@pytest.mark.django_db
def test_a_password_change_keeps_this_session_listed_and_ends_the_others(django_user_model):
    sam = django_user_model.objects.create_user("sam", password=PASSWORD)
    here, there = logged_in_as(sam), logged_in_as(sam, "elsewhere")
    new = "a-brand-new-table-secret"
    response = here.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": new, "new_password2": new},
    )
    assert response.status_code == 302
    assert is_logged_in(here) and not is_logged_in(there)
    [row] = LoginSession.objects.all()
    assert row.session_key == here.session.session_key


# --- endings reach open scenes at once -----------------------------------------------------------


@pytest.mark.parametrize("how", ["one", "everywhere"])
@pytest.mark.usefixtures("close_db_after")
@pytest.mark.django_db(transaction=True)
async def test_ending_a_session_closes_its_open_scene_and_no_other(how):
    table = await sync_to_async(make_table)()
    laptop = await sync_to_async(logged_in_as)(table.alice, "laptop")
    phone = await sync_to_async(logged_in_as)(table.alice, "phone")
    on_laptop = await session_socket(laptop, table.scene)
    on_phone = await session_socket(phone, table.scene)
    if how == "one":
        row = await sync_to_async(LoginSession.objects.get)(device="phone")
        await sync_to_async(laptop.post)(reverse("account_session_end", args=[row.pk]))
        await assert_ended(on_phone, "signed out from another device")
    else:
        await sync_to_async(laptop.post)(reverse("account_sessions_end"))
        await assert_ended(on_phone, "signed out everywhere")
    # This page plays on: told nothing of the end, it still says and hears lines.
    assert not any('"ended"' in frame for frame in await on_laptop.drain())
    await on_laptop.send(command="chat", text="still here", cid="c1")
    assert any("still here" in frame for frame in await on_laptop.drain())
    await assert_no_login_socket(table.scene, client=phone)  # and the phone can't come back
    accepted, again = await open_socket(table.scene, client=laptop)
    assert accepted
    await again.disconnect()
    for socket in (on_laptop, on_phone):
        await socket.close()


# --- what is theirs, and leaving -----------------------------------------------------------------


def played_table():
    """A table where alice and bob have characters and alice spoke, whispered and rolled."""
    table = make_table()
    for user in (table.alice, table.bob):
        hero = Character.objects.create(
            campaign=table.campaign, owner=user, name=f"{user.username}'s hero"
        )
        SavedRoll.objects.create(
            campaign=table.campaign,
            owner=user,
            character=hero,
            name="Longsword",
            expression="1d20+5",
        )
    SavedRoll.objects.create(
        campaign=table.campaign, owner=table.alice, name="Luck", expression="1d100"
    )
    chat(scene=table.scene, actor=table.alice, text="We go in at dawn.", to=[])
    chat(scene=table.scene, actor=table.alice, text="psst, bob", to=[table.bob.pk])
    scene_actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="expression",
        data={"expression": "2d6+1"},
    )
    return table


def chain_of(table) -> list[tuple[int, str]]:
    return list(
        SceneEvent.objects.filter(scene=table.scene, ledger__isnull=False)
        .order_by("seq")
        .values_list("seq", "ledger_hash")
    )


@pytest.mark.django_db
def test_the_download_holds_their_characters_and_each_scenes_ledger():
    table = played_table()
    client = logged_in_as(table.alice)
    response = client.get(reverse("account_download"))
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    characters = json.loads(archive.read("characters.json"))
    assert [c["sheet"]["name"] for c in characters] == ["alice's hero"]  # not bob's
    assert characters[0]["saved_rolls"] == [{"name": "Longsword", "expression": "1d20+5"}]
    assert json.loads(archive.read("saved_rolls.json")) == [
        {"campaign": "Vault", "name": "Luck", "expression": "1d100"}
    ]
    [ledger_name] = [n for n in archive.namelist() if n.startswith("ledgers/")]
    doc = json.loads(archive.read(ledger_name))
    assert doc["exported_for"] == "alice"
    assert ledger.verify(doc).ok
    assert any(d.get("secret", {}).get("text") == "psst, bob" for d in doc["details"].values())


@pytest.mark.django_db
def test_a_player_leaves_the_campaign_plays_on_and_every_ledger_verifies_as_before():
    table = played_table()
    chain_before = chain_of(table)
    head_before = type(table.scene).objects.get(pk=table.scene.pk).ledger_head
    client = logged_in_as(table.alice)
    page = client.get(reverse("account_delete")).content.decode()
    assert reverse("account_download") in page and "a former member" in page
    wrong = client.post(reverse("account_delete"), {"password": "not-it"})
    assert wrong.status_code == 200 and get_user_model().objects.filter(username="alice").exists()

    assert client.post(reverse("account_delete"), {"password": PASSWORD}).status_code == 302
    assert not get_user_model().objects.filter(username="alice").exists()
    assert not Character.objects.filter(name="alice's hero").exists()
    assert Character.objects.filter(name="bob's hero").exists()
    # The chain is what every member holds: not one entry changed.
    assert chain_of(table) == chain_before
    doc = ledger.export(
        scene=table.scene,
        viewer=viewer_for(campaign=table.campaign, user=table.bob),
        viewer_name="bob",
    )
    assert ledger.verify(doc).ok and doc["head"] == head_before
    # The cards name "a former member"; nothing else of the events changed.
    said = SceneEvent.objects.get(kind="chat", public__text="We go in at dawn.")
    assert said.public["speaker"] == "a former member" and said.actor_id is None
    whisper = SceneEvent.objects.get(kind="chat", audience="whisper")
    assert whisper.secret["speaker"] == "a former member" and whisper.secret["to"] == ["bob"]
    # The campaign plays on: the GM and bob still roll and talk.
    chat(scene=table.scene, actor=table.bob, text="Where did alice go?", to=[])
    scene_actions.roll(
        scene=table.scene, actor=table.gm, roll_kind="expression", data={"expression": "1d20"}
    )
    assert len(chain_of(table)) == len(chain_before) + 2


@pytest.mark.django_db
def test_a_gm_must_delete_their_campaigns_before_their_account():
    table = make_table()
    client = logged_in_as(table.gm)
    page = client.get(reverse("account_delete")).content.decode()
    assert "You run" in page and "Vault" in page
    refused = client.post(reverse("account_delete"), {"password": PASSWORD})
    assert refused.status_code == 200 and "A campaign can't lose its GM" in refused.content.decode()
    assert get_user_model().objects.filter(username="gm").exists()


@pytest.mark.parametrize(
    ("agent", "words"),
    [
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0",
            "Firefox on Windows",
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
            "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
            "Safari on iPhone",
        ),
        (
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like "
            "Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0",
            "Edge on macOS",
        ),
        ("", "An unknown browser"),
        ("curl/8.5.0", "curl/8.5.0"),
    ],
)
def test_a_session_names_its_browser_in_a_few_words(agent, words):
    from tabletop.accounts.models import device_words

    assert device_words(agent) == words
