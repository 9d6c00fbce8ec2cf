"""A page load answers within PAGE_ANSWER_SECONDS (tabletop/bounded.py): a response the app has not
started by then becomes the 503 waiting page, and the app's late answer is dropped. A response
that has started runs to its end; websockets pass through.

This module is also the URLconf of the tests through Django's own ASGI handler: a fast view and
one that waits (as a view waits on a hung database) until the test lets it go.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
from pathlib import Path

import pytest
from django.core.asgi import get_asgi_application
from django.http import HttpResponse
from django.template import loader
from django.test import override_settings
from django.urls import path

from tabletop.bounded import BoundedPages

ROOT = Path(__file__).resolve().parents[3]
BOUND = 0.3  # seconds: short, so the tests are quick; the default is the setting's

released = threading.Event()


def slow(request):
    released.wait(timeout=30)  # a database call that does not return until the test says so
    return HttpResponse("late")


def fast(request):
    return HttpResponse("fast")


urlpatterns = [path("test-only/slow/", slow), path("test-only/fast/", fast)]


class Client:
    """The server's side of one ASGI call: what the app is sent, what it sends back."""

    def __init__(self, method: str = "GET", scope_type: str = "http") -> None:
        self.scope = {"type": scope_type, "method": method, "path": "/x/", "headers": []}
        if scope_type == "http":
            self.scope.update(
                asgi={"version": "3.0"},
                http_version="1.1",
                scheme="http",
                query_string=b"",
                root_path="",
                server=("127.0.0.1", 8000),
                client=("127.0.0.1", 50000),
            )
        self.sent: list[dict] = []
        self.complete = asyncio.Event()
        self.disconnected = asyncio.Event()
        self._request_read = False

    async def receive(self) -> dict:
        if not self._request_read:
            self._request_read = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.disconnected.wait()  # as daphne: a disconnect once the response is complete
        return {"type": "http.disconnect"}

    async def send(self, message: dict) -> None:
        self.sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            self.complete.set()
            self.disconnected.set()

    @property
    def status(self) -> int:
        (start,) = [m for m in self.sent if m["type"] == "http.response.start"]
        return start["status"]

    @property
    def headers(self) -> dict[bytes, bytes]:
        (start,) = [m for m in self.sent if m["type"] == "http.response.start"]
        return dict(start["headers"])

    @property
    def body(self) -> str:
        return b"".join(
            m.get("body", b"") for m in self.sent if m["type"] == "http.response.body"
        ).decode()


def answering(after: asyncio.Event | None = None, body: bytes = b"made it"):
    """A fake app that answers 200, once ``after`` is set (if given)."""

    async def app(scope, receive, send):
        await receive()
        if after is not None:
            await after.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    return app


async def test_a_fast_answer_passes_through_unchanged():
    client = Client()
    await BoundedPages(answering(), seconds=BOUND)(client.scope, client.receive, client.send)
    assert client.sent == [
        {"type": "http.response.start", "status": 200, "headers": []},
        {"type": "http.response.body", "body": b"made it"},
    ]


async def test_a_slow_answer_becomes_the_503_page_at_the_bound_and_the_late_one_is_dropped():
    client = Client()
    late = asyncio.Event()
    began = time.monotonic()
    call = asyncio.ensure_future(
        BoundedPages(answering(after=late), seconds=BOUND)(
            client.scope, client.receive, client.send
        )
    )
    await asyncio.wait_for(client.complete.wait(), timeout=BOUND + 2)
    took = time.monotonic() - began
    assert BOUND <= took < BOUND + 0.5
    assert client.status == 503
    assert "waiting on its database" in client.body

    late.set()  # the app answers after all: nothing reaches the client, nothing fails
    await asyncio.wait_for(call, timeout=2)
    assert client.status == 503
    assert "made it" not in client.body
    assert len(client.sent) == 2


async def test_a_started_response_is_never_cut_however_long_it_streams():
    client = Client()

    async def streaming(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for chunk in (b"a", b"b", b"c"):
            await asyncio.sleep(BOUND / 2)  # the whole body takes longer than the bound
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    began = time.monotonic()
    await BoundedPages(streaming, seconds=BOUND)(client.scope, client.receive, client.send)
    assert time.monotonic() - began > BOUND  # the stream outlasted the bound...
    assert client.status == 200  # ...and was sent whole
    assert client.body == "abc"


async def test_a_websocket_passes_through_whatever_it_takes():
    client = Client(scope_type="websocket")
    seen = []

    async def socket(scope, receive, send):
        seen.append(scope)
        await asyncio.sleep(BOUND * 2)  # longer than any page may wait: a socket lives on
        await send({"type": "websocket.accept"})

    await BoundedPages(socket, seconds=BOUND)(client.scope, client.receive, client.send)
    assert seen == [client.scope]
    assert client.sent == [{"type": "websocket.accept"}]


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
async def test_a_change_that_timed_out_may_still_be_saved_and_the_page_says_so(method):
    client = Client(method)
    never = asyncio.Event()
    call = asyncio.ensure_future(
        BoundedPages(answering(after=never), seconds=BOUND)(
            client.scope, client.receive, client.send
        )
    )
    await asyncio.wait_for(client.complete.wait(), timeout=BOUND + 2)
    assert client.status == 503
    assert "may still be saved" in client.body
    assert "reload the page" in client.body
    never.set()
    await call


async def test_a_page_load_is_asked_to_try_again_and_told_nothing_about_saving():
    client = Client("GET")
    never = asyncio.Event()
    call = asyncio.ensure_future(
        BoundedPages(answering(after=never), seconds=BOUND)(
            client.scope, client.receive, client.send
        )
    )
    await asyncio.wait_for(client.complete.wait(), timeout=BOUND + 2)
    assert "try again in a moment" in client.body
    assert 'href="">Try again' in client.body  # the same address, reloaded
    assert "may still be saved" not in client.body
    never.set()
    await call


async def test_the_503_carries_the_headers_the_sites_middleware_would_add(settings):
    client = Client()
    never = asyncio.Event()
    call = asyncio.ensure_future(
        BoundedPages(answering(after=never), seconds=BOUND)(
            client.scope, client.receive, client.send
        )
    )
    await asyncio.wait_for(client.complete.wait(), timeout=BOUND + 2)
    headers = client.headers
    assert headers[b"content-type"] == b"text/html; charset=utf-8"
    assert int(headers[b"content-length"]) == len(client.body.encode())
    assert headers[b"content-security-policy"] == settings.CONTENT_SECURITY_POLICY.encode()
    assert headers[b"x-content-type-options"] == b"nosniff"
    assert headers[b"x-frame-options"] == b"DENY"
    assert headers[b"cache-control"] == b"no-store"  # a proxy must not keep serving it
    assert int(headers[b"retry-after"]) > 0
    never.set()
    await call


async def test_the_bound_is_the_setting_unless_given(settings):
    settings.PAGE_ANSWER_SECONDS = BOUND
    client = Client()
    never = asyncio.Event()
    call = asyncio.ensure_future(
        BoundedPages(answering(after=never))(client.scope, client.receive, client.send)
    )
    await asyncio.wait_for(client.complete.wait(), timeout=BOUND + 2)
    assert client.status == 503
    never.set()
    await call


async def test_an_app_failing_before_the_bound_fails_as_it_would_unwrapped():
    client = Client()

    async def broken(scope, receive, send):
        raise RuntimeError("the table fell over")

    with pytest.raises(RuntimeError, match="fell over"):
        await BoundedPages(broken, seconds=BOUND)(client.scope, client.receive, client.send)
    assert client.sent == []  # the server turns it into its 500, as without the wrapper


async def test_an_app_failing_after_the_503_is_logged_not_raised(caplog):
    client = Client()
    go = asyncio.Event()

    async def fails_late(scope, receive, send):
        await go.wait()
        raise RuntimeError("the database came back with an error")

    call = asyncio.ensure_future(
        BoundedPages(fails_late, seconds=BOUND)(client.scope, client.receive, client.send)
    )
    await asyncio.wait_for(client.complete.wait(), timeout=BOUND + 2)
    with caplog.at_level(logging.ERROR, logger="tabletop.bounded"):
        go.set()
        await asyncio.wait_for(call, timeout=2)
    assert client.status == 503
    assert "the database came back with an error" in caplog.text


async def test_a_request_the_server_cancels_cancels_the_app():
    client = Client()
    waiting, app_cancelled = asyncio.Event(), asyncio.Event()

    async def waits_forever(scope, receive, send):
        waiting.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            app_cancelled.set()
            raise

    call = asyncio.ensure_future(
        BoundedPages(waits_forever, seconds=30)(client.scope, client.receive, client.send)
    )
    await asyncio.wait_for(waiting.wait(), timeout=2)
    call.cancel()  # as daphne does with a request whose client went away long ago
    with pytest.raises(asyncio.CancelledError):
        await call
    await asyncio.wait_for(app_cancelled.wait(), timeout=2)


# --- through Django's own ASGI handler -----------------------------------------------------------


@override_settings(ROOT_URLCONF=__name__)
async def test_django_a_view_stuck_on_its_database_gets_the_503_and_then_ends():
    released.clear()
    client = Client()
    client.scope["path"] = "/test-only/slow/"
    call = asyncio.ensure_future(
        BoundedPages(get_asgi_application(), seconds=BOUND)(
            client.scope, client.receive, client.send
        )
    )
    try:
        await asyncio.wait_for(client.complete.wait(), timeout=BOUND + 5)
        assert client.status == 503
        assert "waiting on its database" in client.body
    finally:
        released.set()  # the database answers: the view returns into a request already answered
    await asyncio.wait_for(call, timeout=10)
    assert client.status == 503
    assert "late" not in client.body


@override_settings(ROOT_URLCONF=__name__)
async def test_django_a_quick_view_answers_as_always():
    client = Client()
    client.scope["path"] = "/test-only/fast/"
    await BoundedPages(get_asgi_application(), seconds=5)(client.scope, client.receive, client.send)
    assert client.status == 200
    assert client.body == "fast"


def test_the_site_serves_pages_through_the_bound():
    from tabletop.asgi import application

    assert isinstance(application.application_mapping["http"], BoundedPages)
    assert not isinstance(application.application_mapping["websocket"], BoundedPages)


# --- the page itself --------------------------------------------------------------------------


def test_the_503_page_is_standalone_and_renders_without_a_request_or_the_database():
    source = (ROOT / "templates" / "503.html").read_text()
    assert "{% extends" not in source and "{% include" not in source
    assert "{% url" not in source and "{% static" not in source  # nothing that can fail itself
    page = loader.get_template("503.html").render({"posted": False})  # no django_db mark
    assert page.startswith("<!doctype html>")
    assert 'class="brand"' in page and 'class="container"' in page  # the site's look


def test_the_503_page_links_the_site_css_that_exists():
    page = loader.get_template("503.html").render({})
    links = re.findall(r'href="/static/([^"]+)"', page)
    assert "css/app.css" in links and any(link.startswith("vendor/pico/") for link in links)
    for link in links:
        assert (ROOT / "static" / link).is_file(), f"503.html links a missing /static/{link}"
