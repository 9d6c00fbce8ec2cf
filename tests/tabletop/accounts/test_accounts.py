import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-table-secret"


def test_signup_creates_user_and_logs_in(client):
    response = client.post(
        reverse("signup"),
        {"username": "mira", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert get_user_model().objects.filter(username="mira").exists()
    assert client.get(reverse("home")).context["user"].username == "mira"


def test_signup_applies_password_validators_and_creates_nothing(client):
    response = client.post(
        reverse("signup"), {"username": "mira", "password1": "123", "password2": "123"}
    )
    assert response.status_code == 200
    assert "too short" in response.content.decode()
    assert not get_user_model().objects.filter(username="mira").exists()


def test_signup_next_is_followed_only_on_this_host(client):
    data = {"username": "mira", "password1": PASSWORD, "password2": PASSWORD}
    response = client.post(reverse("signup") + "?next=https://evil.example/", data)
    assert response["Location"] == reverse("home")


def test_login_and_logout(client, django_user_model):
    django_user_model.objects.create_user("sam", password="a-long-table-secret")
    response = client.post(reverse("login"), {"username": "sam", "password": "a-long-table-secret"})
    assert response.status_code == 302
    assert "_auth_user_id" in client.session
    client.post(reverse("logout"))
    assert "_auth_user_id" not in client.session


def test_bad_login_shows_error(client, django_user_model):
    django_user_model.objects.create_user("sam", password="a-long-table-secret")
    response = client.post(reverse("login"), {"username": "sam", "password": "wrong"})
    assert response.status_code == 200
    assert "correct username and password" in response.content.decode()


def test_change_password(client, django_user_model):
    user = django_user_model.objects.create_user("sam", password="a-long-table-secret")
    client.force_login(user)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": "a-long-table-secret",
            "new_password1": "another-long-secret",
            "new_password2": "another-long-secret",
        },
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("another-long-secret")


def test_change_password_needs_login(client):
    response = client.get(reverse("password_change"))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_pages_carry_csp_without_unsafe_eval(client):
    response = client.get(reverse("home"))
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp
    assert "unsafe-eval" not in csp
    assert "unsafe-inline" not in csp


def _heading(response) -> str:
    return re.search(r"<h1>(.*?)</h1>", response.content.decode()).group(1)


def test_a_new_account_is_welcomed_and_shown_its_first_steps(client):
    data = {"username": "mira", "password1": PASSWORD, "password2": PASSWORD}
    client.post(reverse("signup"), data)
    home = client.get(reverse("home"))
    assert _heading(home) == "Welcome, mira"
    page = home.content.decode()
    assert "Welcome back" not in page
    assert "Start a campaign" in page and "invite link" in page  # what to do first
    assert f'href="{reverse("campaigns:create")}"' in page


def test_a_returning_member_is_welcomed_back(client, django_user_model):
    data = {"username": "mira", "password1": PASSWORD, "password2": PASSWORD}
    client.post(reverse("signup"), data)
    client.post(reverse("logout"))
    client.post(reverse("login"), {"username": "mira", "password": PASSWORD})
    assert _heading(client.get(reverse("home"))) == "Welcome back, mira"
