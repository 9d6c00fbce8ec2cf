"""Each login's session, so its owner can see where they are logged in and end any of them.

Django's session store is keyed by the session alone; it can't list one user's sessions. A row
here is written when a login starts (``user_logged_in``) and removed when it ends.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class LoginSession(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="login_sessions"
    )
    session_key = models.CharField(max_length=40, unique=True)
    started_at = models.DateTimeField(default=timezone.now)
    #: The client's address and browser when it logged in, to tell the sessions apart.
    address = models.CharField(max_length=45, blank=True)
    device = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.user} since {self.started_at:%Y-%m-%d %H:%M}"

    @property
    def device_words(self) -> str:
        """The browser and system in a few words ("Firefox on Windows"), from its user agent."""
        return device_words(self.device)


#: (marker in the user agent, name), the first found wins: Edge and Opera say "Chrome" too,
#: Chrome says "Safari", an iPad may say "Macintosh".
BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("HeadlessChrome/", "Headless Chrome"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
)
SYSTEMS = (
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Android", "Android"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)


def device_words(agent: str) -> str:
    browser = next((name for mark, name in BROWSERS if mark in agent), "")
    system = next((name for mark, name in SYSTEMS if mark in agent), "")
    if browser and system:
        return f"{browser} on {system}"
    return browser or system or (agent[:60] if agent else "An unknown browser")


class LoginLock(models.Model):
    """A lock on an account name or a client address after too many failed logins, with the end
    it announced. Each kind is its own: another name's failures from the same address never
    touch a name's lock, and the address's lock is announced as the address's. The failures
    themselves are counted by django-axes (tabletop/accounts/throttle.py)."""

    class Kind(models.TextChoices):
        NAME = "name", "account name"
        ADDRESS = "address", "client address"

    kind = models.CharField(max_length=7, choices=Kind.choices)
    #: The name (as typed, known or not) or the address.
    key = models.CharField(max_length=255)
    started_at = models.DateTimeField()
    ends_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["kind", "key", "ends_at"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.key} until {self.ends_at:%Y-%m-%d %H:%M:%S}"


class TablePreferences(models.Model):
    """How a member's scene page speaks and listens: which new cards a screen reader announces,
    and whether "/" jumps to the message box (a one-key shortcut a speech-input user may need
    off: WCAG 2.1.4). A member without a row has the defaults."""

    class Announce(models.TextChoices):
        ALL = "all", "Everything new at the table"
        MINE = "mine", "Mine only: my results, whispers to me and my turn"
        NONE = "none", "Nothing"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="table_preferences"
    )
    announce = models.CharField(max_length=4, choices=Announce.choices, default=Announce.ALL)
    slash_key = models.BooleanField(
        default=True, help_text="Press / anywhere outside a field to reach the message box."
    )

    def __str__(self) -> str:
        return f"{self.user}: announce {self.announce}"


def table_preferences(user) -> TablePreferences:  # noqa: ANN001 - a user model
    """``user``'s table preferences: their row, or the defaults (not saved) when they have none."""
    found = TablePreferences.objects.filter(user=user).first() if user.is_authenticated else None
    return found or TablePreferences(user=user if user.is_authenticated else None)
