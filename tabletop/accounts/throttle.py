"""The door's limits: failed logins per account name and per address, and sign-ups, reset mails
and invite mails per address (or sender).

Logins: django-axes, as Django's own guidance suggests. Its backend stands first in
``AUTHENTICATION_BACKENDS`` and refuses a locked name or address before any password is looked
at, so while locked a right password and a wrong one get the same answer in the same time; its
attempts live in the database (``axes_accessattempt``), which every server process shares, and
are raised with one ``UPDATE ... SET failures = failures + 1`` under a row lock, so two
processes never lose a count. ``LoginThrottle`` gives each parameter its own limit (a name
locks after ``LOGIN_FAILURES_PER_NAME``, an address, where a household or a club may share one,
after ``LOGIN_FAILURES_PER_ADDRESS``), and the failure that reaches a limit starts that one's
lock (``LoginLock``), its end fixed then: ``lock_length`` makes each further lock of the same
name (or address) within a day twice as long as the one before, up to
``LOGIN_LOCK_MAX_SECONDS``. The two never mix: another name's failures or lock from the same
address don't lengthen a name's lock, and the address's lock is announced as the address's. A
lock always ends when it said. A name that exists and one that does not are counted and
answered alike. A right password clears the name's count (``AXES_RESET_ON_SUCCESS``).
Operators lift a lock with ``manage.py axes_reset_username NAME`` or ``axes_reset_ip ADDRESS``
(SECURITY.md).

Sign-ups, reset mails and invite mails: ``spend``, a fixed window per hour counted in Django's
cache (Redis when configured, else the database's cache table: both shared by every process).
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import logging
import math
from datetime import timedelta
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt, AccessFailureLog
from django.conf import settings
from django.core.cache import cache
from django.db.models import Q, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from tabletop.accounts.models import LoginLock

log = logging.getLogger(__name__)

#: How far back earlier locks make the next one longer.
LOCKS_REMEMBERED = timedelta(days=1)


# --- who is knocking ------------------------------------------------------------------------------


@functools.cache
def _trusted_networks(entries: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def _is_trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in _trusted_networks(tuple(settings.TRUSTED_PROXIES)))


def _valid(address: str) -> bool:
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True


#: The address of a request that has none (a test client's login, a unix socket): a valid
#: stand-in, as the attempts' column (an inet on PostgreSQL) takes only addresses.
NO_ADDRESS = "0.0.0.0"


def client_address(request: HttpRequest) -> str:
    """The client's address: the peer's, unless the peer is a trusted proxy (``TRUSTED_PROXIES``);
    then the nearest address in X-Forwarded-For that no trusted proxy owns. Entries further left
    are the client's own say and are never believed (anyone can send the header)."""
    peer = request.META.get("REMOTE_ADDR", "")
    if not _valid(peer):
        return NO_ADDRESS
    if not _is_trusted(peer):
        return peer
    forwarded = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    for address in reversed([a for a in forwarded if a]):
        if not _valid(address):
            break  # a mangled entry: nothing left of it can be trusted
        if not _is_trusted(address):
            return address
    return peer


def account_name(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """The name a login tried, as the login form reads it (Django's usernames are exact), cut to
    the column's length so a long name is counted, not crashed on."""
    name = (credentials or {}).get("username")
    if name is None:
        name = request.POST.get("username")
    return None if name is None else str(name)[:255]


# --- the login lock ----------------------------------------------------------------------------


class LoginThrottle(AxesDatabaseHandler):
    """django-axes' database handler, with a limit of its own for the address, and each lock
    recorded (``LoginLock``) with the end it announced."""

    def _counts(self, request: HttpRequest, credentials: dict | None) -> tuple[int, int]:
        """Failures within the last ``cooldown`` of the name, and of the address."""
        by_name, by_address = self.get_user_attempts(request, credentials)
        name_count = by_name.aggregate(n=Sum("failures_since_start"))["n"] or 0
        address_count = by_address.aggregate(n=Sum("failures_since_start"))["n"] or 0
        return name_count, address_count

    def get_failures(self, request: HttpRequest, credentials: dict | None = None) -> int:
        """On the name's scale, so axes' one ``AXES_FAILURE_LIMIT`` decides for both: the limit
        itself while a lock on the name or the address is on, else the fuller of the two
        counts (an address at its limit reads as a name at its own)."""
        per_name = settings.LOGIN_FAILURES_PER_NAME
        if locks_on(request, credentials):
            return per_name
        name_count, address_count = self._counts(request, credentials)
        scaled = math.floor(address_count * per_name / settings.LOGIN_FAILURES_PER_ADDRESS)
        return max(name_count, scaled)

    def user_login_failed(self, sender: Any, credentials: dict, request=None, **kwargs) -> None:
        """axes counts the failure; one that brings the name or the address to its limit starts
        that one's lock, its length fixed now. (A try while locked is not counted.)"""
        # Refused at the door (already locked): axes counts nothing, and nothing starts.
        refused = getattr(request, "axes_locked_out", False)
        super().user_login_failed(sender, credentials, request, **kwargs)
        if request is None or refused or not getattr(request, "axes_locked_out", False):
            return None
        name, address = _name_and_address(request, credentials)
        name_count, address_count = self._counts(request, credentials)
        at = getattr(request, "axes_attempt_time", None) or timezone.now()
        if name is not None and name_count >= settings.LOGIN_FAILURES_PER_NAME:
            _lock(LoginLock.Kind.NAME, name, at)
        if address_count >= settings.LOGIN_FAILURES_PER_ADDRESS:
            _lock(LoginLock.Kind.ADDRESS, address, at)
        return None

    def clean_expired_user_attempts(
        self, request: HttpRequest | None = None, credentials: dict | None = None
    ) -> int:
        """Forget failures older than ``cooldown`` (a lock, once on, no longer needs them), and
        failure logs and locks older than a day."""
        now = timezone.now()
        count, _ = AccessAttempt.objects.filter(attempt_time__lte=now - cooldown()).delete()
        # The failure log and the locks matter for a day; a guesser trying endless names must
        # not grow the tables for ever.
        AccessFailureLog.objects.filter(attempt_time__lte=now - LOCKS_REMEMBERED).delete()
        LoginLock.objects.filter(ends_at__lte=now - LOCKS_REMEMBERED).delete()
        return count

    def reset_user_attempts(self, request: HttpRequest, credentials: dict | None = None) -> int:
        """A right password clears that name's count, not the address's: otherwise a guesser
        with an account of their own would clear the address (and the names guessed from it)
        by logging in to it between guesses."""
        name = get_client_username(request, credentials)
        count, _ = AccessAttempt.objects.filter(username=name).delete()
        return count

    def reset_attempts(
        self,
        *,
        ip_address: str | None = None,
        username: str | None = None,
        ip_or_username: bool = False,
    ) -> int:
        """The operator's ``axes_reset``, ``axes_reset_username``, ``axes_reset_ip``: the
        counts and the locks (and so their doubling) of that name or address, or everyone's."""
        count = super().reset_attempts(
            ip_address=ip_address, username=username, ip_or_username=ip_or_username
        )
        which = Q()
        if ip_address:
            which |= Q(kind=LoginLock.Kind.ADDRESS, key=ip_address)
        if username:
            which |= Q(kind=LoginLock.Kind.NAME, key=username)
        LoginLock.objects.filter(which).delete()
        return count


def _name_and_address(request: HttpRequest, credentials: dict | None) -> tuple[str | None, str]:
    name = get_client_username(request, credentials)
    address = getattr(request, "axes_ip_address", None) or client_address(request)
    return name, address


def locks_on(request: HttpRequest, credentials: dict | None) -> list[LoginLock]:
    """The locks on now for this login's name and address."""
    name, address = _name_and_address(request, credentials)
    which = Q(kind=LoginLock.Kind.ADDRESS, key=address)
    if name is not None:
        which |= Q(kind=LoginLock.Kind.NAME, key=name)
    return list(LoginLock.objects.filter(which, ends_at__gt=timezone.now()))


def lock_length(kind: str, key: str, at: Any) -> timedelta:
    """How long a lock starting ``at`` lasts: ``LOGIN_LOCK_SECONDS``, doubled for each earlier
    lock of the same name (or the same address) within a day, never more than
    ``LOGIN_LOCK_MAX_SECONDS``. Fixed when the lock starts: nothing later changes it."""
    earlier = LoginLock.objects.filter(
        kind=kind, key=key, started_at__gt=at - LOCKS_REMEMBERED, started_at__lte=at
    ).count()
    seconds = settings.LOGIN_LOCK_SECONDS * 2 ** min(earlier, 20)
    return timedelta(seconds=min(seconds, settings.LOGIN_LOCK_MAX_SECONDS))


def _lock(kind: str, key: str, at: Any) -> None:
    if LoginLock.objects.filter(kind=kind, key=key, ends_at__gt=at).exists():
        return  # another process's failure at the same moment started it
    LoginLock.objects.create(
        kind=kind, key=key, started_at=at, ends_at=at + lock_length(kind, key, at)
    )


def cooldown(request: HttpRequest | None = None) -> timedelta:
    """How long a failure counts toward a lock (axes' ``AXES_COOLOFF_TIME``): the first lock's
    length. A lock's own length is ``lock_length``."""
    return timedelta(seconds=settings.LOGIN_LOCK_SECONDS)


def wait_words(seconds: float) -> str:
    """A wait in words a person reads at a glance: "40 seconds", "2 minutes", "1 hour"."""
    seconds = max(1, math.ceil(seconds))
    if seconds < 90:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    if minutes < 90:
        return f"{minutes} minutes"
    hours = math.ceil(minutes / 60)
    return f"{hours} hour{'s' if hours != 1 else ''}"


def locked_out(request: HttpRequest, *unused: Any) -> HttpResponse:
    """The login page's answer while locked (429): when to try again, and the way back for a
    forgotten password. The same for every name, known or not. (axes passes the response it
    replaces and the credentials, in an order that differs on its async path: both are read
    from the request instead.)"""
    from django.contrib.auth.forms import AuthenticationForm

    credentials = getattr(request, "axes_credentials", None)
    # The lock that ends last is the one to wait for; each is announced as what it is.
    locks = sorted(locks_on(request, credentials), key=lambda lock: lock.ends_at)
    ends = locks[-1].ends_at if locks else timezone.now() + cooldown()
    wait = max((ends - timezone.now()).total_seconds(), 1)
    by_address = bool(locks) and locks[-1].kind == LoginLock.Kind.ADDRESS
    whose = " from your address" if by_address else ""
    form = AuthenticationForm(request, initial={"username": account_name(request, credentials)})
    context = {
        "form": form,
        "next": request.POST.get("next", request.GET.get("next", "")),
        "locked": f"Too many failed logins{whose}. Try again in {wait_words(wait)}.",
        "retry_at": ends,
    }
    response = render(request, "registration/login.html", context, status=429)
    response["Retry-After"] = str(math.ceil(wait))
    return response


# --- sign-ups and mails: so many an hour --------------------------------------------------------

WINDOW_SECONDS = 3600


def spend(*, what: str, who: str, allowed: int) -> float | None:
    """Count one ``what`` (signup, reset, invite mail) for ``who`` (an address, a user) in this
    hour's window. Returns None when it is within ``allowed``, else the seconds until the window
    turns. A cache that cannot be reached lets it through (logged): a sign-up limit is worth
    less than a door that opens.

    Each use claims a numbered place in the window with ``cache.add``, which every backend makes
    atomic (Redis ``SET NX``, the database cache's primary key, locmem's lock) and which stores
    the place for the window's whole length. ``cache.incr`` is neither on the database cache: it
    reads, then writes back with the cache's default timeout (5 minutes), so counts were lost and
    the hour ended after five minutes. Places are claimed in order, so the first free one is the
    count; one read finds it, and a lost race moves on to the next."""
    now = timezone.now().timestamp()
    window = int(now // WINDOW_SECONDS)
    # The window's own end, and a minute more so a clock a little behind still finds it.
    timeout = math.ceil((window + 1) * WINDOW_SECONDS - now) + 60
    # Hashed: an email address may be longer than a cache key may be (250 characters).
    who_key = hashlib.sha256(who.encode()).hexdigest()
    places = [f"limit:{what}:{who_key}:{window}:{n}" for n in range(1, allowed + 2)]
    count = allowed + 1  # every place taken: over the limit
    try:
        taken = cache.get_many(places)
        for n, place in enumerate(places, start=1):
            if place not in taken and cache.add(place, 1, timeout=timeout):
                count = n
                break
    except Exception:  # any cache failure: the limit is skipped, not the request
        log.warning("the %s limit could not be counted (cache unavailable)", what, exc_info=True)
        return None
    if count <= allowed:
        return None
    return (window + 1) * WINDOW_SECONDS - now
