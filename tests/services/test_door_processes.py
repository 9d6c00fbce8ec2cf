"""The door's limits hold across server processes: two daphnes on one PostgreSQL (and one Redis)
count the same failed logins and the same sign-ups, so a guesser gains nothing by spreading
guesses over the processes a load balancer picks between."""

from __future__ import annotations

import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request

import pytest

from tests.servers import Server

pytestmark = pytest.mark.services
PASSWORD = "a-long-table-secret"


class Browser:
    """One browser (its own cookies) that fills and posts the site's forms over HTTP."""

    def __init__(self) -> None:
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirects()
        )

    def post_form(self, server: Server, path: str, fields: dict[str, str]) -> tuple[int, str]:
        page = self.opener.open(server.url + path, timeout=10).read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        data = urllib.parse.urlencode({"csrfmiddlewaretoken": token, **fields}).encode()
        request = urllib.request.Request(server.url + path, data=data)
        request.add_header("Referer", server.url + path)
        try:
            response = self.opener.open(request, timeout=10)
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()
        return response.status, response.read().decode()

    def login(self, server: Server, name: str, password: str) -> tuple[int, str]:
        return self.post_form(server, "/accounts/login/", {"username": name, "password": password})


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # a 302 is the answer itself
        return None

    def http_error_302(self, req, fp, code, msg, headers):  # noqa: ANN001 - urllib's signature
        return fp


def create_user(server: Server, name: str) -> None:
    server.shell(
        "from django.contrib.auth import get_user_model; "
        f"get_user_model().objects.create_user({name!r}, password={PASSWORD!r})"
    )


def test_failed_logins_on_one_process_lock_the_name_on_the_other(daphnes):
    a = daphnes.start()
    b = daphnes.another(a)
    create_user(a, "sam")
    guesser = Browser()
    answers = [guesser.login(server, "sam", f"guess-{n}")[0] for n, server in enumerate([a, b] * 2)]
    assert answers == [200, 200, 200, 200]  # four failures, spread over both processes
    status, page = guesser.login(a, "sam", "guess-5")
    assert status == 429 and "Too many failed logins. Try again in" in page
    # The owner, on the other process, waits too; another name is not held up.
    status, page = Browser().login(b, "sam", PASSWORD)
    assert status == 429 and "Too many failed logins" in page
    create_user(b, "ines")
    assert Browser().login(a, "ines", PASSWORD)[0] == 302
    # The operator lifts the lock from either process's command line.
    b.manage("axes_reset_username", "sam")
    assert Browser().login(a, "sam", PASSWORD)[0] == 302


@pytest.mark.parametrize("store", ["redis", "database"])
def test_signups_from_one_address_are_counted_across_processes(daphnes, shared_redis_url, store):
    env = {"SIGNUPS_PER_HOUR": "3"}
    if store == "redis":
        env["REDIS_URL"] = shared_redis_url
    a = daphnes.start(**env)
    b = daphnes.another(a)
    statuses = []
    for n, server in enumerate([a, b, a, b]):
        fields = {"username": f"new{n}", "password1": PASSWORD, "password2": PASSWORD}
        statuses.append(Browser().post_form(server, "/accounts/signup/", fields)[0])
    assert statuses == [302, 302, 302, 429]
    assert "new3" not in b.shell(
        "from django.contrib.auth import get_user_model; "
        "print(list(get_user_model().objects.values_list('username', flat=True)))"
    )
