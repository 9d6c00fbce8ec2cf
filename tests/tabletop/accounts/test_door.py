"""The door's limits: failed logins per name and per address (django-axes, LoginThrottle), sign-ups
and reset mails per address, the reset mail itself, and the messages a person reads."""

from __future__ import annotations

import re
from datetime import timedelta
from unittest import mock

import pytest
from axes.models import AccessAttempt, AccessFailureLog
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.db.models import F
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone

from tabletop.accounts import throttle
from tabletop.accounts.models import LoginLock

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-table-secret"


@pytest.fixture
def sam(django_user_model):
    return django_user_model.objects.create_user("sam", email="sam@example.org", password=PASSWORD)


def login(client: Client, name: str, password: str, address: str = "198.51.100.7"):
    return client.post(
        reverse("login"), {"username": name, "password": password}, REMOTE_ADDR=address
    )


def time_passes(seconds: float) -> None:
    """Move every recorded attempt and lock back in time, as if ``seconds`` had gone by."""
    for model in (AccessAttempt, AccessFailureLog):
        for row in model.objects.all():
            row.attempt_time -= timedelta(seconds=seconds)
            row.save(update_fields=["attempt_time"])
    back = timedelta(seconds=seconds)
    LoginLock.objects.update(started_at=F("started_at") - back, ends_at=F("ends_at") - back)


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def answer_text(response) -> str:
    """The page as a reader sees it, less what differs on every page (the CSRF token) and the
    name typed back into the form."""
    text = response.content.decode()
    text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", text)
    text = re.sub(r'"X-CSRFToken": "[^"]+"', "", text)
    return re.sub(r'name="username" value="[^"]*"', "", text)


# --- logins --------------------------------------------------------------------------------------


def test_a_hundred_wrong_passwords_lock_the_name_and_the_right_one_waits_for_the_cooldown(
    client, sam, settings
):
    answers = [login(client, "sam", f"guess-{n}") for n in range(100)]
    statuses = [answer.status_code for answer in answers]
    limit = settings.LOGIN_FAILURES_PER_NAME
    assert statuses[: limit - 1] == [200] * (limit - 1)  # the ordinary form, still counting
    assert set(statuses[limit - 1 :]) == {429}  # locked from the limit on
    assert answers[limit - 1]["Retry-After"] == "60"
    # The lock runs from the failure that reached the limit; guesses while locked don't count,
    # start no lock and move no end (however long the hundred took on this machine).
    [lock] = LoginLock.objects.filter(key="sam")
    assert lock.ends_at - lock.started_at == timedelta(seconds=settings.LOGIN_LOCK_SECONDS)
    locked = login(client, "sam", PASSWORD)
    assert locked.status_code == 429 and not logged_in(client)
    remaining = (lock.ends_at - timezone.now()).total_seconds()
    wait = re.search(
        r"Too many failed logins\. Try again in (\d+) seconds\.", locked.content.decode()
    )
    assert wait and abs(int(wait.group(1)) - remaining) <= 2
    assert locked["Retry-After"] == wait.group(1)
    assert "Forgot your password?" in locked.content.decode()

    time_passes(remaining - 5)
    assert login(client, "sam", PASSWORD).status_code == 429  # not yet
    time_passes(6)
    assert login(client, "sam", PASSWORD).status_code == 302 and logged_in(client)


def test_while_locked_no_password_is_checked_and_right_and_wrong_answer_alike(client, sam):
    for n in range(5):
        login(client, "sam", f"guess-{n}")
    user_model = get_user_model()
    with (
        mock.patch("django.contrib.auth.base_user.check_password") as checked,
        mock.patch.object(user_model, "set_password") as hashed,
    ):
        right = login(client, "sam", PASSWORD)
        wrong = login(client, "sam", "still-guessing")
    assert checked.call_count == 0 and hashed.call_count == 0  # refused before any hashing
    assert right.status_code == wrong.status_code == 429
    assert answer_text(right) == answer_text(wrong)


def test_an_unknown_name_is_counted_and_answered_as_a_known_one(sam):
    known, unknown = Client(), Client()
    known_answers = [login(known, "sam", f"g{n}", address="198.51.100.1") for n in range(7)]
    unknown_answers = [login(unknown, "nobody", f"g{n}", address="198.51.100.2") for n in range(7)]
    assert [r.status_code for r in known_answers] == [r.status_code for r in unknown_answers]
    for a, b in zip(known_answers, unknown_answers, strict=True):
        assert answer_text(a) == answer_text(b)


def test_the_lock_is_per_name_other_accounts_still_log_in(client, sam, django_user_model):
    django_user_model.objects.create_user("ines", password=PASSWORD)
    for n in range(6):
        login(client, "sam", f"g{n}")
    assert login(Client(), "ines", PASSWORD).status_code == 302


def test_an_address_locks_after_its_own_limit_across_names(settings, django_user_model):
    django_user_model.objects.create_user("ines", password=PASSWORD)
    guesser = Client()
    per_address = settings.LOGIN_FAILURES_PER_ADDRESS
    for n in range(per_address - 1):  # a different name each time: no name reaches its limit
        assert login(guesser, f"name{n}", "guess", address="203.0.113.9").status_code == 200
    assert login(guesser, "last", "guess", address="203.0.113.9").status_code == 429
    refused = login(guesser, "ines", PASSWORD, address="203.0.113.9")
    assert refused.status_code == 429 and "Too many failed logins" in refused.content.decode()
    assert login(Client(), "ines", PASSWORD, address="203.0.113.10").status_code == 302


def test_another_names_lock_from_the_same_address_does_not_lengthen_this_names(client, sam):
    """Issue 42: "Try again in 60 seconds", and 66 s later the right password got "Try again
    in 54 seconds": another name's lock from the same address had lengthened it."""
    for n in range(5):
        first = login(client, "sam", f"g{n}", address="198.51.100.20")
    assert first["Retry-After"] == "60"
    time_passes(6)
    for n in range(5):  # someone else at the same table locks their own name
        other = login(Client(), "ines", f"g{n}", address="198.51.100.20")
    assert other.status_code == 429 and other["Retry-After"] == "60"
    time_passes(55)
    again = login(Client(), "sam", PASSWORD, address="198.51.100.20")
    assert again.status_code == 302, again.content.decode()


def test_the_address_lock_is_announced_on_its_own_and_lasts_what_it_said(
    sam, settings, django_user_model
):
    django_user_model.objects.create_user("ines", password=PASSWORD)
    table = "203.0.113.30"
    for n in range(5):  # sam's name locks first: a lock of its own, not the address's
        login(Client(), "sam", f"g{n}", address=table)
    time_passes(10)
    per_address = settings.LOGIN_FAILURES_PER_ADDRESS
    for n in range(per_address - 5):
        answer = login(Client(), f"name{n}", "guess", address=table)
    assert answer.status_code == 429
    text = answer.content.decode()
    assert "Too many failed logins from your address. Try again in 60 seconds." in text
    assert answer["Retry-After"] == "60"
    assert login(Client(), "ines", PASSWORD, address="203.0.113.31").status_code == 302
    time_passes(58)
    waiting = login(Client(), "ines", PASSWORD, address=table)
    assert waiting.status_code == 429 and "from your address" in waiting.content.decode()
    assert int(waiting["Retry-After"]) <= 2
    time_passes(3)
    assert login(Client(), "ines", PASSWORD, address=table).status_code == 302
    assert login(Client(), "sam", PASSWORD, address=table).status_code == 302


def test_a_right_password_clears_the_names_count(client, sam, settings):
    for n in range(settings.LOGIN_FAILURES_PER_NAME - 1):
        login(client, "sam", f"g{n}")
    assert login(client, "sam", PASSWORD).status_code == 302
    other = Client()
    for n in range(settings.LOGIN_FAILURES_PER_NAME - 1):
        assert login(other, "sam", f"again{n}").status_code == 200  # counting from zero


def test_logging_in_to_ones_own_account_does_not_clear_the_guesses_at_another(
    sam, settings, django_user_model
):
    django_user_model.objects.create_user("mallory", password=PASSWORD)
    attacker = Client()
    for n in range(settings.LOGIN_FAILURES_PER_NAME - 1):
        login(attacker, "sam", f"g{n}", address="203.0.113.66")
    assert login(attacker, "mallory", PASSWORD, address="203.0.113.66").status_code == 302
    attacker.post(reverse("logout"))
    assert login(attacker, "sam", "one-more", address="203.0.113.66").status_code == 429


def test_each_further_lock_within_a_day_lasts_twice_as_long_up_to_the_longest(
    client, sam, settings
):
    settings.LOGIN_LOCK_MAX_SECONDS = 5 * 60
    waits = []
    for _ in range(5):
        for n in range(settings.LOGIN_FAILURES_PER_NAME):
            response = login(client, "sam", f"g{n}")
        waits.append(int(response["Retry-After"]))
        time_passes(waits[-1] + 1)
    assert waits == [60, 120, 240, 300, 300]
    assert login(client, "sam", PASSWORD).status_code == 302  # every lock ended


def test_failures_are_forgotten_after_a_day_and_the_next_lock_is_short_again(client, sam):
    for _ in range(2):
        for n in range(5):
            response = login(client, "sam", f"g{n}")
        time_passes(int(response["Retry-After"]) + 1)
    assert int(response["Retry-After"]) == 120  # the second lock today
    time_passes(24 * 3600)
    login(client, "sam", "one more")  # a failure clears what is older than a day
    assert not LoginLock.objects.filter(key="sam").exists()
    for n in range(4):
        response = login(client, "sam", f"g{n}")
    assert int(response["Retry-After"]) == 60


def test_a_lock_changes_no_data(client, sam):
    before = get_user_model().objects.filter(pk=sam.pk).values().get()
    for n in range(30):
        login(client, "sam", f"g{n}")
    assert get_user_model().objects.filter(pk=sam.pk).values().get() == before


def test_an_operator_lifts_a_lock_with_axes_reset_username(client, sam):
    for n in range(5):
        login(client, "sam", f"g{n}")
    assert login(client, "sam", PASSWORD).status_code == 429
    call_command("axes_reset_username", "sam")
    assert login(client, "sam", PASSWORD).status_code == 302


# --- the client's address ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("peer", "forwarded", "address"),
    [
        ("198.51.100.4", "203.0.113.1", "198.51.100.4"),  # not a proxy: its header is ignored
        ("10.0.0.2", "203.0.113.1", "203.0.113.1"),  # the trusted proxy's word
        ("10.0.0.2", "6.6.6.6, 203.0.113.1", "203.0.113.1"),  # the client's own entry is not
        ("10.0.0.2", "203.0.113.1, 10.0.0.3", "203.0.113.1"),  # through two proxies
        ("10.0.0.2", "", "10.0.0.2"),
        ("10.0.0.2", "not-an-address", "10.0.0.2"),
        ("", "203.0.113.1", "0.0.0.0"),  # no peer at all (a test client's login): a stand-in
        ("unix:/run/daphne.sock", "", "0.0.0.0"),
    ],
)
def test_the_forwarded_address_is_believed_only_from_a_trusted_proxy(
    settings, peer, forwarded, address
):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    request = RequestFactory().get("/", REMOTE_ADDR=peer, HTTP_X_FORWARDED_FOR=forwarded)
    assert throttle.client_address(request) == address


def test_a_spoofed_forwarded_header_does_not_escape_the_address_limit(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    guesser = Client()
    for n in range(settings.LOGIN_FAILURES_PER_ADDRESS):
        guesser.post(
            reverse("login"),
            {"username": f"n{n}", "password": "x"},
            REMOTE_ADDR="10.0.0.2",
            HTTP_X_FORWARDED_FOR=f"192.0.2.{n}, 203.0.113.50",
        )
    refused = guesser.post(
        reverse("login"),
        {"username": "fresh", "password": "x"},
        REMOTE_ADDR="10.0.0.2",
        HTTP_X_FORWARDED_FOR="192.0.2.200, 203.0.113.50",
    )
    assert refused.status_code == 429


# --- sign-ups and reset mails --------------------------------------------------------------------


def test_signups_are_limited_per_address(settings):
    settings.SIGNUPS_PER_HOUR = 3
    client = Client()
    for n in range(3):
        data = {"username": f"new{n}", "password1": PASSWORD, "password2": PASSWORD}
        assert client.post(reverse("signup"), data, REMOTE_ADDR="192.0.2.5").status_code == 302
        client.post(reverse("logout"))
    data = {"username": "new9", "password1": PASSWORD, "password2": PASSWORD}
    refused = client.post(reverse("signup"), data, REMOTE_ADDR="192.0.2.5")
    assert refused.status_code == 429
    assert "Too many sign-ups from your address. Try again in" in refused.content.decode()
    assert not get_user_model().objects.filter(username="new9").exists()
    assert Client().post(reverse("signup"), data, REMOTE_ADDR="192.0.2.6").status_code == 302


def test_signup_takes_an_email_for_resets_and_refuses_one_in_use(sam):
    data = {"username": "ines", "email": "SAM@example.org", "password1": PASSWORD}
    response = Client().post(reverse("signup"), {**data, "password2": PASSWORD})
    assert response.status_code == 200 and "Another account uses that address." in (
        response.content.decode()
    )
    data["email"] = "ines@example.org"
    assert Client().post(reverse("signup"), {**data, "password2": PASSWORD}).status_code == 302
    assert get_user_model().objects.get(username="ines").email == "ines@example.org"


def test_the_login_page_links_the_reset_and_the_reset_mail_works(client, sam):
    page = client.get(reverse("login")).content.decode()
    assert f'href="{reverse("password_reset")}"' in page and "Forgot your password?" in page
    response = client.post(reverse("password_reset"), {"email": "sam@example.org"})
    assert response.status_code == 302
    [sent] = mail.outbox
    assert sent.subject == "Reset your password on Tabletop"
    assert "Tabletop" in sent.body and "sam" in sent.body
    assert sent.alternatives == []  # plain text only
    link = re.search(r"http://testserver(/accounts/reset/\S+)", sent.body).group(1)
    form_page = client.get(link, follow=True)
    new = "a-brand-new-table-secret"
    done = client.post(
        form_page.redirect_chain[-1][0], {"new_password1": new, "new_password2": new}
    )
    assert done.status_code == 302
    assert login(Client(), "sam", new).status_code == 302


def test_reset_requests_are_limited_per_address_with_a_message(settings, sam):
    settings.PASSWORD_RESETS_PER_HOUR = 2
    client = Client()
    for _ in range(2):
        client.post(reverse("password_reset"), {"email": "x@example.org"}, REMOTE_ADDR="192.0.2.9")
    refused = client.post(
        reverse("password_reset"), {"email": "sam@example.org"}, REMOTE_ADDR="192.0.2.9"
    )
    assert refused.status_code == 429
    assert "Too many reset requests from your address" in refused.content.decode()
    assert mail.outbox == []


def test_one_inbox_gets_a_few_reset_mails_an_hour_and_the_page_tells_no_one(settings, sam):
    settings.PASSWORD_RESETS_PER_HOUR = 2
    answers = [
        Client().post(
            reverse("password_reset"), {"email": "sam@example.org"}, REMOTE_ADDR=f"192.0.2.{n}"
        )
        for n in range(10, 15)
    ]
    assert {a.status_code for a in answers} == {302}
    assert {a["Location"] for a in answers} == {reverse("password_reset_done")}
    assert len(mail.outbox) == 2


def test_wait_words_read_at_a_glance():
    assert throttle.wait_words(1) == "1 second"
    assert throttle.wait_words(59.2) == "60 seconds"
    assert throttle.wait_words(120) == "2 minutes"
    assert throttle.wait_words(3600) == "60 minutes"
    assert throttle.wait_words(3 * 3600) == "3 hours"


def test_an_operator_lifts_an_address_lock_with_axes_reset_ip(settings, django_user_model):
    django_user_model.objects.create_user("ines", password=PASSWORD)
    for n in range(settings.LOGIN_FAILURES_PER_ADDRESS):
        login(Client(), f"name{n}", "guess", address="203.0.113.40")
    assert login(Client(), "ines", PASSWORD, address="203.0.113.40").status_code == 429
    call_command("axes_reset_ip", "203.0.113.40")
    assert login(Client(), "ines", PASSWORD, address="203.0.113.40").status_code == 302
