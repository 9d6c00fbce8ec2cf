"""Discord's webhooks: the URL a GM pastes, and the two calls the mirror makes.

Only a webhook URL of Discord is taken (``parse``): at ``discord.com`` or ``discordapp.com``
(or their ``ptb.`` and ``canary.`` forms) over https, or at the host of ``DISCORD_API_BASE``
(a local fake). Any other address is refused with a message, so the server never posts where
a user chose. Only the webhook's id and token are kept; every request's URL is built from
``DISCORD_API_BASE``. The token is a secret: no message here, logged or stored, holds it.

The calls follow Discord's documented webhook API: execute with ``?wait=true`` (the answer is
the message, with the id a reveal later edits), edit a webhook message (PATCH), each with
``allowed_mentions: {"parse": []}`` from the caller. Each answer is sorted (``_answer``) into
what the sender does with it: a message, a rate limit to wait out (429's ``retry_after``, the
``Retry-After`` and ``X-RateLimit-*`` headers), a webhook that is gone (401, 403; 404 "Unknown
Webhook") which stops the mirror, a message that is gone (404 "Unknown Message": a reveal posts
anew), a post refused (another 4xx: that post is dropped), or Discord unreachable (5xx, a
timeout, a refused connection: retried with backoff).
"""

from __future__ import annotations

import http.client
import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from email.message import Message as Headers
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError

#: Discord's own hosts for a webhook URL (as its client copies them, and the ptb/canary builds).
DISCORD_HOSTS = frozenset(
    f"{build}{domain}"
    for build in ("", "ptb.", "canary.")
    for domain in ("discord.com", "discordapp.com")
)
_ID = r"(?P<id>[0-9]{5,20})"
_TOKEN = r"(?P<token>[A-Za-z0-9_-]{20,100})"
#: Discord's JSON error codes that say what a 404 means.
UNKNOWN_WEBHOOK = 10015
UNKNOWN_MESSAGE = 10008

HOW_TO_GET_ONE = (
    "In Discord: Server Settings, Integrations, Webhooks, New Webhook, then Copy Webhook URL."
)


@dataclass(frozen=True)
class Webhook:
    """A webhook's id and token (the token never in its repr)."""

    id: str
    token: str = field(repr=False)

    def url(self, tail: str = "") -> str:
        return f"{settings.DISCORD_API_BASE}/webhooks/{self.id}/{self.token}{tail}"


def _api_path(scheme: str, netloc: str) -> str | None:
    """The API's path at this scheme and host, or None for a host that is not Discord's."""
    base = urlsplit(settings.DISCORD_API_BASE)
    if (scheme, netloc) == (base.scheme, base.netloc.lower()):
        return base.path.rstrip("/")
    if scheme == "https" and netloc in DISCORD_HOSTS:
        return "/api"
    return None


def parse(pasted: str) -> Webhook:
    """The webhook a pasted URL names; a ``ValidationError`` saying why for anything else (it
    never repeats the URL: it may hold a token)."""
    text = (pasted or "").strip()
    if not text:
        raise ValidationError(f"Paste the webhook's URL. {HOW_TO_GET_ONE}")
    try:
        parts = urlsplit(text)
        netloc = parts.netloc.lower()
        host = parts.hostname or ""
    except ValueError:
        raise ValidationError(f"That is not a web address. {HOW_TO_GET_ONE}") from None
    if parts.scheme not in ("http", "https") or not host or "@" in netloc:
        raise ValidationError(f"That is not a webhook URL. {HOW_TO_GET_ONE}")
    api = _api_path(parts.scheme, netloc)
    if api is None:
        if host in DISCORD_HOSTS and parts.scheme != "https":
            raise ValidationError("A Discord webhook URL starts with https://.")
        raise ValidationError(
            f"Only a Discord webhook URL is taken (https://discord.com/api/webhooks/...); "
            f"this one points at {host}. Nothing was saved."
        )
    if parts.query or parts.fragment:
        raise ValidationError("Paste the webhook URL as Discord gives it, without ? or #.")
    found = re.fullmatch(
        re.escape(api) + r"(?:/v[0-9]{1,2})?/webhooks/" + _ID + "/" + _TOKEN + "/?", parts.path
    )
    if found is None:
        raise ValidationError(
            "That address is at Discord but is not a webhook's: it reads "
            f"https://discord.com/api/webhooks/<numbers>/<token>. {HOW_TO_GET_ONE}"
        )
    return Webhook(found["id"], found["token"])


# --- answers -------------------------------------------------------------------------------------


class DiscordError(Exception):
    """What went wrong with a request, in words for the GM (never the token)."""


class RateLimited(DiscordError):
    """429: wait ``seconds`` before the next request to this webhook."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"Discord's rate limit: waiting {seconds:.1f} s")
        self.seconds = seconds


class WebhookGone(DiscordError):
    """401, 403 or a 404 for the webhook: it was deleted (or its token reset)."""


class MessageGone(DiscordError):
    """404 for a message: someone deleted it in Discord."""


class Refused(DiscordError):
    """Another 4xx: this request will never be taken as it is."""


class Unreachable(DiscordError):
    """5xx, a timeout, a refused connection: try again later."""


@dataclass(frozen=True)
class Answer:
    """A request Discord took: the message (None for 204) and how long the webhook's rate
    limit asks to wait before the next request (0: none; its bucket has requests left)."""

    message: dict[str, Any] | None
    wait: float = 0.0


def _seconds(value: Any) -> float:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return 0.0
    return seconds if 0 < seconds < 24 * 3600 else 0.0


def _bucket_wait(headers: Headers | None) -> float:
    """The wait the ``X-RateLimit-*`` headers ask for: the bucket's reset when none is left."""
    if headers is None or headers.get("X-RateLimit-Remaining", "").strip() != "0":
        return 0.0
    return _seconds(headers.get("X-RateLimit-Reset-After"))


def _answer(status: int, raw: bytes, headers: Headers | None) -> Answer:
    try:
        body = json.loads(raw) if raw else None
    except ValueError:
        body = None
    data = body if isinstance(body, dict) else {}
    if 200 <= status < 300:
        return Answer(data or None, _bucket_wait(headers))
    if status == 429:
        # The body's retry_after is the precise one (Retry-After is whole seconds, rounded up).
        heard = headers if headers is not None else Headers()
        retry = (
            _seconds(data.get("retry_after"))
            or _seconds(heard.get("Retry-After"))
            or _seconds(heard.get("X-RateLimit-Reset-After"))
        )
        raise RateLimited(retry or 1.0)
    said = str(data.get("message", ""))[:120]
    code = data.get("code")
    if status in (401, 403) or (status == 404 and code != UNKNOWN_MESSAGE):
        raise WebhookGone(
            f"Discord refused the webhook ({status}{': ' + said if said else ''}): it was "
            "deleted or its token was reset. Paste a new webhook URL to start again."
        )
    if status == 404:
        raise MessageGone(f"Discord no longer has that message ({said or 'Unknown Message'}).")
    if 400 <= status < 500:
        raise Refused(f"Discord refused the post ({status}{': ' + said if said else ''}).")
    raise Unreachable(f"Discord answered {status}; trying again later.")


def _user_agent() -> str:
    # Discord asks API clients to name themselves as "DiscordBot (url, version)".
    return f"DiscordBot ({settings.SITE_URL or 'http://localhost'}, 1.0)"


def _request(method: str, webhook: Webhook, tail: str, payload: dict[str, Any]) -> Answer:
    request = urllib.request.Request(  # noqa: S310 - the URL is built from DISCORD_API_BASE
        webhook.url(tail),
        data=json.dumps(payload).encode(),
        method=method,
        headers={"Content-Type": "application/json", "User-Agent": _user_agent()},
    )
    try:
        with urllib.request.urlopen(  # noqa: S310
            request, timeout=settings.DISCORD_TIMEOUT_SECONDS
        ) as response:
            status, raw, headers = response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        status, raw, headers = error.code, error.read(), error.headers
    except (OSError, http.client.HTTPException, ValueError) as error:
        # Its words, never the URL (the token is in it): "timed out", "Connection refused".
        reason = getattr(error, "reason", None) or error
        words = str(reason).replace(webhook.token, "…")[:120]
        raise Unreachable(f"Discord did not answer ({type(error).__name__}: {words}).") from None
    return _answer(status, raw, headers)


def execute(webhook: Webhook, payload: dict[str, Any]) -> Answer:
    """Post a message; Discord answers with it (``?wait=true``: its id, kept for an edit)."""
    return _request("POST", webhook, "?wait=true", payload)


def edit(webhook: Webhook, message_id: str, payload: dict[str, Any]) -> Answer:
    """Edit a message the webhook posted (a stub's, when its roll is revealed)."""
    if not message_id.isdigit():
        raise MessageGone("No such message.")
    return _request("PATCH", webhook, f"/messages/{message_id}", payload)
