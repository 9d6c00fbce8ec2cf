"""Every page load answers within a bounded time (issue 27).

A view waiting on a hung database (a paused PostgreSQL: no server-side timeout fires on a server
that does not run) held its page load as long as the stall. ``BoundedPages`` wraps the HTTP app:
when the app has not started its response within PAGE_ANSWER_SECONDS, the client gets a 503 page
saying the table's server is waiting on its database, and whatever the app sends afterwards is
dropped. Only the wait for the response's START is bounded: a response that has begun (a static
file, a streamed export) takes as long as it takes. Other scopes (websockets) pass through: the
scene consumer bounds its own commands.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from django.conf import settings
from django.template import loader

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Methods that change nothing: a request by any other may have been saved although it timed out.
SAFE_METHODS = {"GET", "HEAD", "OPTIONS", "TRACE"}
#: What the 503 tells the browser (and a proxy) about trying again, in seconds.
RETRY_AFTER_SECONDS = 5


def waiting_page(method: str) -> bytes:
    """The 503 page: standalone (templates/503.html), no request, no database."""
    posted = method.upper() not in SAFE_METHODS
    return loader.render_to_string("503.html", {"posted": posted}).encode()


def waiting_headers(body: bytes) -> list[tuple[bytes, bytes]]:
    # Django's middleware never sees this response: send the security headers it would add.
    return [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        (b"retry-after", str(RETRY_AFTER_SECONDS).encode()),
        (b"content-security-policy", settings.CONTENT_SECURITY_POLICY.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"same-origin"),
    ]


class BoundedPages:
    """ASGI middleware: an HTTP response starts within ``seconds`` (default: the setting
    PAGE_ANSWER_SECONDS, read per request), or the client gets the 503 waiting page."""

    def __init__(self, app: ASGIApp, *, seconds: float | None = None) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = asyncio.Event()
        answered_for_app = False

        async def app_send(message: Message) -> None:
            if answered_for_app:
                return  # the client has the 503 page: the app's late answer goes nowhere
            if message["type"] == "http.response.start":
                started.set()
            await send(message)

        app = asyncio.ensure_future(self.app(scope, receive, app_send))
        start = asyncio.ensure_future(started.wait())
        seconds = self.seconds if self.seconds is not None else settings.PAGE_ANSWER_SECONDS
        try:
            await asyncio.wait({app, start}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            app.cancel()  # the server gave up on this request: so does the app
            raise
        finally:
            start.cancel()
        if started.is_set() or app.done():
            await app  # started in time (or ended): it runs to its end as it would unwrapped
            return
        # No await between the check and this flag: the app cannot start in between.
        answered_for_app = True
        log.warning(
            "no answer within %s s to %s %s: sent the 503 waiting page",
            seconds,
            scope.get("method", ""),
            scope.get("path", ""),
        )
        body = waiting_page(scope.get("method", "GET"))
        await send({"type": "http.response.start", "status": 503, "headers": waiting_headers(body)})
        await send({"type": "http.response.body", "body": body})
        try:
            # The app goes on until its database call returns (a thread cannot be stopped) or the
            # server cancels it: its failure is logged, not raised into a request already answered.
            await app
        except Exception:
            log.exception("the app failed after its request got the 503 waiting page")
