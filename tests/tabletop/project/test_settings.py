"""Settings come from the environment; production values pass `check --deploy`."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

PRODUCTION_ENV = {
    "DEBUG": "false",
    "SECRET_KEY": "k3y-" + "x7Qz9" * 12,
    "ALLOWED_HOSTS": "table.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://table.example.org",
    "DATABASE_URL": "postgres://tabletop:secret@db:5432/tabletop",
    "REDIS_URL": "redis://redis:6379/0",
}


def run_manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in PRODUCTION_ENV}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_value(expr: str, env: dict[str, str]) -> str:
    result = run_manage("shell", "-c", f"from django.conf import settings; print({expr})", env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_check_deploy_is_clean_with_production_values():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_flags_debug_values():
    # The check must be able to fail: with DEBUG on it reports the insecure settings.
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", env={"DEBUG": "true"})
    assert result.returncode != 0
    assert "security.W018" in result.stdout + result.stderr


def test_environment_selects_postgres_and_redis():
    assert settings_value("settings.DATABASES['default']['ENGINE']", PRODUCTION_ENV) == (
        "django.db.backends.postgresql"
    )
    assert "tabletop.scenes.layers.SteadyRedisChannelLayer" in settings_value(
        "settings.CHANNEL_LAYERS['default']['BACKEND']", PRODUCTION_ENV
    )
    pubsub = dict(PRODUCTION_ENV, CHANNEL_LAYER="pubsub")
    assert "PubSub" in settings_value("settings.CHANNEL_LAYERS['default']['BACKEND']", pubsub)


def test_embedded_defaults_are_sqlite_and_in_memory():
    env = {"DEBUG": "true"}
    assert settings_value("settings.DATABASES['default']['ENGINE']", env) == (
        "django.db.backends.sqlite3"
    )
    assert "InMemoryChannelLayer" in settings_value(
        "settings.CHANNEL_LAYERS['default']['BACKEND']", env
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DEBUG": "false"}, "SECRET_KEY must be set"),
        (dict(PRODUCTION_ENV, ALLOWED_HOSTS="*"), "may not contain '*'"),
        ({"DEBUG": "maybe"}, "DEBUG must be true or false"),
    ],
)
def test_unsafe_production_settings_are_refused(env, message):
    result = run_manage("check", env=env)
    assert result.returncode != 0
    assert message in result.stderr


def test_production_cookies_and_hsts():
    assert settings_value("settings.SESSION_COOKIE_SECURE", PRODUCTION_ENV) == "True"
    assert settings_value("settings.CSRF_COOKIE_SECURE", PRODUCTION_ENV) == "True"
    assert int(settings_value("settings.SECURE_HSTS_SECONDS", PRODUCTION_ENV)) >= 31536000
