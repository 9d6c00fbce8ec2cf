"""``GET /health/``: 200 "ok" while this process serves and its database answers; 503 with
the reason otherwise ("stopping" once told to stop, so a proxy or orchestrator sends nothing
new here). Answered before Django (no host, session or HTTPS redirect: the check runs inside
the container, on plain HTTP) and says nothing but those words."""

from __future__ import annotations

import asyncio
from typing import Any

from django.db import connection

from tabletop.operating import serving

PATH = "/health/"
DATABASE_SECONDS = 3.0


def _database_answers() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:
        return False
    finally:
        connection.close()


async def state() -> tuple[int, str]:
    if serving.stopping():
        return 503, "stopping"
    try:
        answers = await asyncio.wait_for(asyncio.to_thread(_database_answers), DATABASE_SECONDS)
    except TimeoutError:
        answers = False
    return (200, "ok") if answers else (503, "database unavailable")


class HealthCheck:
    """ASGI: answers PATH itself, passes everything else to ``app``."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != PATH:
            await self.app(scope, receive, send)
            return
        status, word = await state()
        body = word.encode() + b"\n"
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        if scope["method"] == "HEAD":
            body = b""
        await send({"type": "http.response.body", "body": body})
