"""Settings for the tabletop project, read from the environment.

With nothing set, the app runs on the embedded defaults: SQLite and the in-memory channel layer,
DEBUG on, bound to 127.0.0.1 (`make dev`). Production sets DATABASE_URL (PostgreSQL), REDIS_URL
(channels-redis), SECRET_KEY, DEBUG=false, ALLOWED_HOSTS and CSRF_TRUSTED_ORIGINS; `manage.py
check --deploy` is clean with those: DEBUG off means HTTPS only (redirect, HSTS, Secure cookies).

`make run` sets DEBUG=false and LOCAL_HTTP=true: the production settings, on the embedded
defaults, for this machine over plain HTTP. LOCAL_HTTP drops the HTTPS-only settings, allows only
loopback hosts, and without SECRET_KEY uses a key generated once into SECRET_KEY_FILE
(git-ignored ``.local/secret_key``). It does nothing while DEBUG is on.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.strip().lower() in {"1", "true", "yes", "on"}:
        return True
    if value.strip().lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}.")


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def local_secret_key(path: Path) -> str:
    """The secret key kept in ``path``, generated there (mode 0600) the first time it is needed.

    Stable across restarts, so sessions survive them; never committed (.gitignore). Two processes
    starting at once agree: the first link wins and the other reads its key.
    """
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, draft = tempfile.mkstemp(dir=path.parent, prefix=".secret_key-")  # mode 0600
        try:
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_urlsafe(50) + "\n")
            with contextlib.suppress(FileExistsError):
                os.link(draft, path)  # never replaces a key that is already there
        finally:
            os.unlink(draft)
    key = path.read_text().strip()
    if len(key) < 50:
        raise ImproperlyConfigured(f"{path} holds no usable secret key; delete it for a new one.")
    return key


DEBUG = env_bool("DEBUG", True)
#: This machine over plain HTTP with DEBUG off (`make run`): see the module docstring.
LOCAL_HTTP = env_bool("LOCAL_HTTP", False) and not DEBUG
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "[::1]"}

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
if not DEBUG and "*" in ALLOWED_HOSTS:
    # A wildcard host would let any Origin open a websocket (AllowedHostsOriginValidator).
    raise ImproperlyConfigured("ALLOWED_HOSTS may not contain '*' when DEBUG is off.")
if LOCAL_HTTP and not set(ALLOWED_HOSTS) <= LOOPBACK_HOSTS:
    # Passwords and session cookies would cross the network in clear text.
    raise ImproperlyConfigured(
        "LOCAL_HTTP serves plain HTTP to this machine only: ALLOWED_HOSTS may name only "
        "127.0.0.1, localhost and [::1]. Serve other hosts over HTTPS, without LOCAL_HTTP."
    )
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
#: A refused form (no valid CSRF token) gets a page in the site's layout, not Django's bare one.
CSRF_FAILURE_VIEW = "tabletop.views.csrf_failure"

SECRET_KEY_FILE = Path(os.environ.get("SECRET_KEY_FILE") or BASE_DIR / ".local" / "secret_key")
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if LOCAL_HTTP:
        SECRET_KEY = local_secret_key(SECRET_KEY_FILE)
    elif not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off (`make run` uses a generated local key)."
        )
    else:
        SECRET_KEY = "django-insecure-local-development-only-key-never-use-in-production"

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    # Failed logins counted per name and per address, refused while locked (tabletop/accounts)
    "axes",
    "tabletop.accounts",
    "tabletop.campaigns",
    "tabletop.characters",
    "tabletop.scenes",
    "tabletop.systems",
    "tabletop.stats",
    # What the site sends out of itself (mail), sent by one thread per process
    "tabletop.outbox",
    # Notifications, read marks and mail digests between game nights
    "tabletop.notify",
    # The table's log in the group's Discord channel, as an outsider sees it
    "tabletop.discord",
    # Backups, restores, upgrades, the processes serving (README "Operating it")
    "tabletop.operating",
]

#: The game systems this site offers: each a Django app (tabletop/systems/<slug>/, its
#: ``apps.py``) that registers its ``System`` once the apps are ready (tabletop.systems).
TABLETOP_SYSTEMS = [
    "tabletop.systems.any_game",
    "tabletop.systems.annulus",
    "tabletop.systems.roll_and_keep",
    "tabletop.systems.conductor",
    "tabletop.systems.two_dice",
    "tabletop.systems.percentile",
]
INSTALLED_APPS += TABLETOP_SYSTEMS

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "tabletop.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: turns a refused (locked) login into the login page's answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "tabletop.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    }
]

WSGI_APPLICATION = None
ASGI_APPLICATION = "tabletop.asgi.application"

DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Keep each thread's connection for a minute: a new PostgreSQL connection per call was
        # a third of a roll's time in daphne (bench/README.md). Health checks catch dead ones.
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Wait for the writer instead of failing with "database is locked" under concurrent clicks.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    DATABASES["default"]["OPTIONS"]["transaction_mode"] = "IMMEDIATE"
#: A request the app has not begun to answer by then gets a 503 page saying the table's server
#: is waiting on its database (tabletop/bounded.py): a stalled database never holds a page load.
PAGE_ANSWER_SECONDS = float(os.environ.get("PAGE_ANSWER_SECONDS", "8"))
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Bounded waits: a hung or locked database becomes a quick error, never a hang (issue 27).
    postgres_options = DATABASES["default"].setdefault("OPTIONS", {})
    # A hung server accepts the TCP connection and never answers: give up, but later than
    # PAGE_ANSWER_SECONDS, so a page stuck connecting gets the 503 page rather than the 500.
    postgres_options.setdefault("connect_timeout", int(PAGE_ANSWER_SECONDS) + 2)
    server_waits = {
        # A query longer than anyone waits for is cancelled, its thread and locks freed.
        # DATABASE_STATEMENT_TIMEOUT_SECONDS=0 lifts it (a long migration on a big table).
        "statement_timeout": f"{int(os.environ.get('DATABASE_STATEMENT_TIMEOUT_SECONDS', '15'))}s",
        # A command queued behind a scene's row lock that a stuck transaction holds fails fast.
        "lock_timeout": "5s",
        # A transaction left open by a frozen process (holding a scene's lock for everyone) is
        # ended by the server; ours commit in milliseconds.
        "idle_in_transaction_session_timeout": "10s",
    }
    # Sent at connect (libpq "options"); whatever the URL's own options say comes last and wins.
    ours = " ".join(f"-c {name}={value}" for name, value in server_waits.items())
    postgres_options["options"] = f"{ours} {postgres_options.get('options', '')}".strip()

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
CHANNEL_GROUP_EXPIRY_SECONDS = 3600
CHANNEL_LAYER_KIND = os.environ.get("CHANNEL_LAYER", "core")  # core | pubsub (with REDIS_URL)
if REDIS_URL:
    backend = {
        # channels_redis's layers, steady through a Redis outage (tabletop/scenes/layers.py).
        "core": "tabletop.scenes.layers.SteadyRedisChannelLayer",
        "pubsub": "tabletop.scenes.layers.SteadyRedisPubSubChannelLayer",
    }.get(CHANNEL_LAYER_KIND)
    if backend is None:
        raise ImproperlyConfigured("CHANNEL_LAYER must be 'core' or 'pubsub'.")
    layer_config: dict = {
        # No read timeout: redis-py 8's default (5 s) cuts the core layer's 5 s blocking pop and
        # closes every idle socket with 1011 every few seconds (django/channels_redis#422).
        # redis-py's pool stops at 100 connections and then fails calls (MaxConnectionsError):
        # a burst of group_sends, or every socket leaving its groups at shutdown, needs more.
        # A connect to a Redis that is down fails in 2 s, not the OS's minutes; every call on
        # the layer is bounded by its caller (scenes/command_threads.py, LAYER_SEND_SECONDS).
        "hosts": [
            {
                "address": REDIS_URL,
                "socket_timeout": None,
                "socket_connect_timeout": 2,
                "max_connections": 1000,
            }
        ],
        # Keys start with this: apps (or test runs) sharing one Redis stay apart.
        "prefix": os.environ.get("CHANNEL_LAYER_PREFIX", "asgi"),
    }
    if CHANNEL_LAYER_KIND == "core":
        # Messages waiting on a channel before the layer drops more; sockets catch up from the DB.
        layer_config["capacity"] = int(os.environ.get("CHANNEL_LAYER_CAPACITY", "100"))
        # A dead process's channels leave the groups after an hour (Channels' default: a day);
        # live sockets join theirs again well before that (tabletop/scenes/beats.py).
        layer_config["group_expiry"] = CHANNEL_GROUP_EXPIRY_SECONDS
    CHANNEL_LAYERS = {"default": {"BACKEND": backend, "CONFIG": layer_config}}
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
# How often a scene's beat checks the database for events the layer did not deliver and
# refreshes its sockets' presence (a presence older than 2.5 beats is gone: a player whose
# process died shows offline within about 30 s).
SCENE_HEARTBEAT_SECONDS = float(os.environ.get("SCENE_HEARTBEAT_SECONDS", "8"))
#: Threads that run scenes' commands side by side (tabletop/scenes/command_threads.py), each
#: with its own database connection; fewer than 2: every command on Channels' one database
#: thread. On PostgreSQL by default; SQLite takes one writer at a time anyway.
SCENE_COMMAND_THREADS = int(
    os.environ.get(
        "SCENE_COMMAND_THREADS",
        "2" if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" else "0",
    )
)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# The lock is checked first, before any password is (django-axes' backend refuses a locked name
# or address without looking further); then Django's own.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# --- the door: throttled logins, sign-ups and reset mails (tabletop/accounts/throttle.py) -------
#: Proxies whose X-Forwarded-For is believed (addresses or networks, comma-separated): the
#: client's address is the nearest one they forwarded. Anyone else's header is ignored.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES")
#: Failed logins before a lock: per account name (known or not), and per client address.
LOGIN_FAILURES_PER_NAME = int(os.environ.get("LOGIN_FAILURES_PER_NAME", "5"))
LOGIN_FAILURES_PER_ADDRESS = int(os.environ.get("LOGIN_FAILURES_PER_ADDRESS", "20"))
#: The first lock's length; each further lock within a day doubles it, up to the longest.
LOGIN_LOCK_SECONDS = int(os.environ.get("LOGIN_LOCK_SECONDS", "60"))
LOGIN_LOCK_MAX_SECONDS = int(os.environ.get("LOGIN_LOCK_MAX_SECONDS", "3600"))
#: Per client address and hour: new accounts, password reset mails, invite mails (per sender).
SIGNUPS_PER_HOUR = int(os.environ.get("SIGNUPS_PER_HOUR", "5"))
PASSWORD_RESETS_PER_HOUR = int(os.environ.get("PASSWORD_RESETS_PER_HOUR", "5"))
INVITE_MAILS_PER_HOUR = int(os.environ.get("INVITE_MAILS_PER_HOUR", "20"))

AXES_HANDLER = "tabletop.accounts.throttle.LoginThrottle"
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_FAILURE_LIMIT = LOGIN_FAILURES_PER_NAME  # the address's own limit: LoginThrottle
AXES_COOLOFF_TIME = "tabletop.accounts.throttle.cooldown"
AXES_RESET_ON_SUCCESS = True  # a right password clears the name's count
# A guess while locked is not counted: it neither extends the lock nor makes the next one longer,
# so a lock always ends when it said it would.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_ENABLE_ACCESS_FAILURE_LOG = True  # each failure of the last day, for the operator
AXES_DISABLE_ACCESS_LOG = True  # successful logins are noted once, as login sessions (accounts)
AXES_CLIENT_IP_CALLABLE = "tabletop.accounts.throttle.client_address"
AXES_LOCKOUT_CALLABLE = "tabletop.accounts.throttle.locked_out"
AXES_USERNAME_CALLABLE = "tabletop.accounts.throttle.account_name"
AXES_VERBOSE = False

# The limits' counters live where every process sees them: Redis when configured, else the
# database (its table made by tabletop/accounts' migration).
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CHANNEL_LAYER_PREFIX", "asgi") + "-cache",
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "tabletop_cache",
            # Past MAX_ENTRIES (300 by default) it deletes a third of all entries, live counts
            # too; expired ones go first, so this bounds the table to a busy hour's counts.
            "OPTIONS": {"MAX_ENTRIES": 1_000_000},
        }
    }

# --- email: Django's own names, from the environment --------------------------------------------
#: Without EMAIL_HOST, mail is printed on the server's terminal (`make run`, `make dev`): a reset
#: link shows there. With it, SMTP.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", EMAIL_PORT == 587)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", EMAIL_PORT == 465)
EMAIL_TIMEOUT = 10  # a stalled mail server is an error, never a hung page
#: The site's name in every mail and its sender.
#: Each daphne process runs one sender thread: the outbox (mail) and the durable readers
#: (tabletop/outbox/sender.py). Off for the test run, whose tests run its passes themselves.
OUTBOX_SENDER = env_bool("OUTBOX_SENDER", True)
#: A notification not seen starts a window this long; at its end one mail lists what is still
#: unseen in that scene (tabletop/notify/digests.py).
NOTIFY_EMAIL_DELAY_SECONDS = int(os.environ.get("NOTIFY_EMAIL_DELAY_SECONDS", "300"))
#: Where the campaigns' Discord mirrors post (tabletop/discord): Discord's API, or a local fake
#: (`make fake-discord`) for a trial and the tests. A webhook URL a GM pastes is taken only at
#: Discord's own hosts or this one's, and only its id and token are kept.
DISCORD_API_BASE = os.environ.get("DISCORD_API_BASE", "https://discord.com/api").rstrip("/")
#: A Discord request that takes longer is a failure, retried later (never a scene's wait).
DISCORD_TIMEOUT_SECONDS = float(os.environ.get("DISCORD_TIMEOUT_SECONDS", "10"))
#: The site's address as members reach it, for links in mail (the scene, one-click
#: unsubscribe): e.g. https://table.example.org. Empty: http://localhost:8000.
SITE_URL = os.environ.get("SITE_URL", "").rstrip("/")

SITE_NAME = os.environ.get("SITE_NAME", "Tabletop")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", f"{SITE_NAME} <tabletop@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
PASSWORD_RESET_TIMEOUT = 60 * 60 * 24  # a reset link works for a day

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# DEBUG off serves the hashed, compressed files `collectstatic` put in STATIC_ROOT (whitenoise):
# `make run` collects them before serving, the image at build time (deploy/Dockerfile).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            # whitenoise's, which also hashes the JS modules' import paths.
            else "tabletop.static_storage.HashedStaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# Security: on whenever DEBUG is off; the reverse proxy terminates TLS. The HTTPS-only part is
# left out for LOCAL_HTTP (`make run`: plain HTTP on loopback, no proxy in front).
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
if not DEBUG and not LOCAL_HTTP:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

# No 'unsafe-eval' and no inline script: htmx runs with allowEval off (see templates/base.html).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # channels_redis's pub/sub receiver logs a traceback every second Redis is down: once a
    # minute is enough (tabletop/scenes/outage.py says when the outage starts and ends).
    "filters": {"once_a_minute": {"()": "tabletop.scenes.outage.OncePerMinute"}},
    "loggers": {
        "django.channels.server": {"level": "WARNING"},
        # django-axes logs every attempt; its warnings (a lock, a repeated failure) are enough.
        "axes": {"level": "WARNING"},
        "channels_redis.pubsub": {"filters": ["once_a_minute"]},
    },
}

# Check every recorded event against the payload its kind declares (tabletop/scenes/payloads.py):
# on in the test settings (typeguard is a development dependency), off in play.
CHECK_EVENT_PAYLOADS = False
# Refuse a second write outside a transaction in an action run without one (``scene_action(
# atomic=False)``, tabletop/scenes/fastpath/onewrite.py): the guard counts every statement, so it
# is on in the test settings, which run every such action under it, and off in play.
CHECK_ONE_WRITE = False
