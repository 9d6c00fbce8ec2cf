"""A local fake of Discord's webhooks, built from Discord's documented webhook API, for the
tests and for a trial on `make run` (`make fake-discord` prints what it receives).

What it answers, as Discord does:

- ``POST {api}/webhooks/{id}/{token}``: execute. 200 with the message (its ``id``) under
  ``?wait=true``, 204 without. 404 ``{"code": 10015, "message": "Unknown Webhook"}`` for a
  webhook that does not exist (or was deleted), 401 ``{"code": 50027, "message": "Invalid
  Webhook Token"}`` for a wrong token.
- ``PATCH {api}/webhooks/{id}/{token}/messages/{message_id}``: edit a message the webhook
  posted: 200 with it; 404 ``{"code": 10008, "message": "Unknown Message"}`` for another.
- Every answer carries the rate-limit headers (``X-RateLimit-Limit``, ``-Remaining``,
  ``-Reset-After``, ``-Bucket``) of a bucket of ``limit`` requests per ``per`` seconds per
  webhook; past it, 429 with ``{"message": "You are being rate limited.", "retry_after": s,
  "global": false}``, ``Retry-After`` and ``X-RateLimit-Scope``.
- ``answer_next(status, ...)`` scripts the next answers (a 503, a 429, a 401...), ``delay``
  makes every answer slow (a Discord that lags), ``hang_next`` one that never answers in time.

It records every request (``requests``), the messages as they stand (``messages``) and never
prints a token.
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

_ROUTE = re.compile(
    r"^/api/webhooks/(?P<id>\d+)/(?P<token>[\w-]+)(?:/messages/(?P<message>\d+))?/?$"
)


@dataclass
class Received:
    """One request as the fake got it (its token never kept)."""

    method: str
    webhook_id: str
    message_id: str | None
    wait: bool
    body: dict[str, Any]
    raw: str
    at: float
    status: int = 0


@dataclass
class Scripted:
    status: int
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    hang: float = 0.0


class FakeDiscord:
    """The fake server; ``start`` serves it on loopback, ``stop`` ends it."""

    def __init__(self, port: int = 0, *, limit: int = 30, per: float = 2.0) -> None:
        self.port = port
        self.limit, self.per = limit, per
        self.delay = 0.0
        self.webhooks: dict[str, str] = {}  # id -> token
        self.messages: dict[str, dict[str, Any]] = {}
        self.requests: list[Received] = []
        self.on_request: Any = None  # called with each Received (the script prints it)
        #: requests that arrived (answered or not yet: ``requests`` holds the answered ones)
        self.arrivals = 0
        self._scripted: deque[Scripted] = deque()
        self._buckets: dict[str, list[float]] = {}
        self._ids = itertools.count(1_180_000_000_000_000_001)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # --- setting it up -----------------------------------------------------------------------

    @property
    def base(self) -> str:
        """What DISCORD_API_BASE is set to for the app to post here."""
        return f"http://127.0.0.1:{self.port}/api"

    def webhook(self) -> tuple[str, str, str]:
        """A new webhook: its id, token and URL (as Discord's "Copy Webhook URL" gives it)."""
        webhook_id = str(next(self._ids))
        token = secrets.token_urlsafe(51)[:68]
        with self._lock:
            self.webhooks[webhook_id] = token
        return webhook_id, token, f"{self.base}/webhooks/{webhook_id}/{token}"

    def delete(self, webhook_id: str) -> None:
        """Delete a webhook, as a server admin does in Discord."""
        with self._lock:
            self.webhooks.pop(webhook_id, None)

    def answer_next(
        self,
        status: int,
        body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        *,
        times: int = 1,
    ) -> None:
        """The next ``times`` requests get this answer instead of the usual one."""
        with self._lock:
            for _ in range(times):
                self._scripted.append(Scripted(status, body, dict(headers or {})))

    def rate_limit_next(self, retry_after: float, *, times: int = 1) -> None:
        body = {"message": "You are being rate limited.", "retry_after": retry_after}
        headers = {
            "Retry-After": str(max(1, round(retry_after))),
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset-After": f"{retry_after:.3f}",
            "X-RateLimit-Scope": "user",
        }
        self.answer_next(429, {**body, "global": False}, headers, times=times)

    def hang_next(self, seconds: float) -> None:
        """The next request gets no answer for ``seconds`` (the app's timeout is shorter)."""
        with self._lock:
            self._scripted.append(Scripted(0, hang=seconds))

    # --- what it got ----------------------------------------------------------------------------

    def posts(self) -> list[Received]:
        """The executes that were taken (200 or 204), in order."""
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and r.status in (200, 204)]

    def edits(self) -> list[Received]:
        with self._lock:
            return [r for r in self.requests if r.method == "PATCH" and r.status == 200]

    def bodies(self) -> list[str]:
        """Every request body as sent (what a secrecy test searches)."""
        with self._lock:
            return [r.raw for r in self.requests]

    # --- serving --------------------------------------------------------------------------------

    def start(self) -> FakeDiscord:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                fake._handle(self, "POST")

            def do_PATCH(self) -> None:  # noqa: N802
                fake._handle(self, "PATCH")

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return  # quiet: the URL holds the token

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeDiscord:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- answering -------------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        with self._lock:
            self.arrivals += 1
        parts = urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length).decode("utf-8", "replace") if length else ""
        route = _ROUTE.match(parts.path)
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        received = Received(
            method=method,
            webhook_id=route["id"] if route else "",
            message_id=route["message"] if route else None,
            wait=parse_qs(parts.query).get("wait", [""])[0] == "true",
            body=body if isinstance(body, dict) else {},
            raw=raw,
            at=time.time(),
        )
        status, answer, headers = self._answer(route, received)
        received.status = status
        with self._lock:
            self.requests.append(received)
        if self.on_request is not None:
            self.on_request(received)
        payload = json.dumps(answer).encode() if answer is not None else b""
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name, value)
        if payload:
            handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def _answer(
        self, route: re.Match[str] | None, received: Received
    ) -> tuple[int, dict[str, Any] | None, dict[str, str]]:
        with self._lock:
            scripted = self._scripted.popleft() if self._scripted else None
        if scripted is not None and scripted.hang:
            # No answer in time: the caller has given up by now; nothing is posted.
            time.sleep(scripted.hang)
            return 504, {"message": "no answer in time", "code": 0}, {}
        if self.delay:
            time.sleep(self.delay)
        if route is None:
            return 404, {"message": "404: Not Found", "code": 0}, {}
        headers = self._bucket(route["id"])
        if scripted is not None:
            return scripted.status, scripted.body, {**headers, **scripted.headers}
        with self._lock:
            token = self.webhooks.get(route["id"])
        if token is None:
            return 404, {"message": "Unknown Webhook", "code": 10015}, headers
        if token != route["token"]:
            return 401, {"message": "Invalid Webhook Token", "code": 50027}, headers
        if headers.get("X-RateLimit-Remaining") == "-1":
            return self._limited(headers)
        if received.method == "PATCH":
            return self._edit(received, headers)
        message = self._message(received)
        return (200, message, headers) if received.wait else (204, None, headers)

    def _bucket(self, webhook_id: str) -> dict[str, str]:
        now = time.monotonic()
        with self._lock:
            used = [t for t in self._buckets.get(webhook_id, []) if now - t < self.per]
            over = len(used) >= self.limit
            if not over:
                used.append(now)
            self._buckets[webhook_id] = used
        reset = self.per - (now - used[0]) if used else self.per
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": "-1" if over else str(self.limit - len(used)),
            "X-RateLimit-Reset-After": f"{max(reset, 0.001):.3f}",
            "X-RateLimit-Bucket": "fake-webhook-bucket",
        }

    def _limited(self, headers: dict[str, str]) -> tuple[int, dict[str, Any], dict[str, str]]:
        retry = float(headers["X-RateLimit-Reset-After"])
        headers = {
            **headers,
            "X-RateLimit-Remaining": "0",
            "Retry-After": str(max(1, round(retry))),
            "X-RateLimit-Scope": "user",
        }
        body = {"message": "You are being rate limited.", "retry_after": retry, "global": False}
        return 429, body, headers

    def _message(self, received: Received) -> dict[str, Any]:
        message = {
            "id": str(next(self._ids)),
            "type": 0,
            "channel_id": "1180000000000000000",
            "webhook_id": received.webhook_id,
            "content": received.body.get("content", ""),
            "embeds": received.body.get("embeds", []),
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
        }
        with self._lock:
            self.messages[message["id"]] = message
        return message

    def _edit(
        self, received: Received, headers: dict[str, str]
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._lock:
            message = self.messages.get(received.message_id or "")
            if message is None or message["webhook_id"] != received.webhook_id:
                return 404, {"message": "Unknown Message", "code": 10008}, headers
            for key in ("content", "embeds"):
                if key in received.body:
                    message[key] = received.body[key]
            return 200, dict(message), headers

    def delete_message(self, message_id: str) -> None:
        """Someone deletes a message in Discord."""
        with self._lock:
            self.messages.pop(message_id, None)
