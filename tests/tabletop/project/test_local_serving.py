"""`make run` serves with DEBUG off on this machine (issue "Safe serving by default"); `make dev`
keeps DEBUG on.

`make run` sets LOCAL_HTTP=true: plain HTTP on loopback (no HTTPS redirect, HSTS or Secure
cookies) and a secret key generated once into a git-ignored file. Production (DEBUG off without
LOCAL_HTTP) stays HTTPS only. The environment each target serves with is read from `make -n`, so
these tests follow the Makefile.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from tabletop.scenes.consumers import DAPHNE_MAX_MESSAGE_BYTES
from tests.tabletop.project.test_settings import PRODUCTION_ENV

ROOT = Path(__file__).resolve().parents[3]
#: Variables a test sets itself; taken out of the inherited environment.
SETTINGS_VARIABLES = {*PRODUCTION_ENV, "LOCAL_HTTP", "SECRET_KEY_FILE", "CHANNEL_LAYER"}
ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")

requires_make = pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")


@cache
def dry_run(target: str) -> tuple[str, ...]:
    """The commands `make <target>` would run, without running them."""
    result = subprocess.run(
        ["make", "--no-print-directory", "-n", target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return tuple(result.stdout.splitlines())


def daphne_line(target: str) -> str:
    (line,) = [line for line in dry_run(target) if "/daphne " in line]
    return line


def serve_env(target: str) -> dict[str, str]:
    """The variables `make <target>` starts daphne with (``NAME=value`` before the command)."""
    env = {}
    for word in shlex.split(daphne_line(target)):
        if not ASSIGNMENT.match(word):
            break
        name, value = word.split("=", 1)
        env[name] = value
    return env


def manage(*args: str, env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES}
    # A throwaway database, so nothing here touches the checkout's db.sqlite3.
    clean.update({"DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", **env})
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


SETTINGS_PROBE = """
import json
from django.conf import settings as s
names = ["DEBUG", "SECRET_KEY", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS",
         "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_PROXY_SSL_HEADER"]
values = {name: getattr(s, name) for name in names}
values["STATICFILES"] = s.STORAGES["staticfiles"]["BACKEND"]
values["ENGINE"] = s.DATABASES["default"]["ENGINE"]
values["LAYER"] = s.CHANNEL_LAYERS["default"]["BACKEND"]
print("SETTINGS", json.dumps(values))
"""


def settings_under(env: dict[str, str], tmp_path: Path) -> dict:
    result = manage("shell", "-c", SETTINGS_PROBE, env=env, tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("SETTINGS ")]
    return json.loads(line.removeprefix("SETTINGS "))


# --- the Makefile ----------------------------------------------------------------------------


@requires_make
def test_make_run_serves_with_debug_off_locally_and_make_dev_with_debug_on():
    site = "http://127.0.0.1:8000"
    assert serve_env("run") == {"DEBUG": "false", "LOCAL_HTTP": "true", "SITE_URL": site}
    assert serve_env("dev") == {"DEBUG": "true", "SITE_URL": site}
    for target in ("run", "dev"):
        line = daphne_line(target)
        assert f"--websocket-max-message-size {DAPHNE_MAX_MESSAGE_BYTES} " in line, target
        assert "-b 127.0.0.1 -p 8000 " in line, target


@requires_make
def test_make_run_migrates_and_collects_static_files_first_with_its_own_environment():
    commands = dry_run("run")
    served = commands.index(daphne_line("run"))
    # `upgrade`: migrate, after a backup when the database holds data (README, "Operating it").
    steps = {
        step: [i for i, line in enumerate(commands) if re.search(rf"manage\.py {step}\b", line)]
        for step in ("upgrade", "collectstatic")
    }
    assert all(len(found) == 1 and found[0] < served for found in steps.values()), steps
    for (index,) in steps.values():
        assert commands[index].startswith("DEBUG=false LOCAL_HTTP=true "), commands[index]
    # `make dev` serves static/ through the finders: nothing to collect.
    assert not any("collectstatic" in line for line in dry_run("dev"))


@requires_make
def test_make_run_says_where_and_how_it_serves():
    said = "\n".join(dry_run("run"))
    assert "running at http://127.0.0.1:8000/ (DEBUG off" in said
    port = subprocess.run(
        ["make", "--no-print-directory", "-n", "run", "PORT=8876"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    assert "running at http://127.0.0.1:8876/" in port and "-p 8876 " in port


# --- settings in make run's mode -------------------------------------------------------------


@requires_make
def test_make_run_mode_has_debug_off_and_a_key_generated_once_into_the_file(tmp_path):
    key_file = tmp_path / "local" / "secret_key"
    env = {**serve_env("run"), "SECRET_KEY_FILE": str(key_file)}
    first = settings_under(env, tmp_path)
    assert first["DEBUG"] is False
    assert key_file.read_text().strip() == first["SECRET_KEY"]
    assert len(first["SECRET_KEY"]) >= 50
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert key_file.parent.stat().st_mode & 0o077 == 0
    assert sorted(p.name for p in key_file.parent.iterdir()) == ["secret_key"]  # no draft left
    # Stable across restarts (sessions survive), still on the embedded defaults.
    second = settings_under(env, tmp_path)
    assert second["SECRET_KEY"] == first["SECRET_KEY"]
    assert second["ENGINE"] == "django.db.backends.sqlite3"
    assert second["LAYER"] == "channels.layers.InMemoryChannelLayer"
    # Static files come hashed and compressed from collectstatic, as in production (whitenoise's
    # storage, which also hashes the scene modules' imports: tabletop/static_storage.py).
    assert second["STATICFILES"] == "tabletop.static_storage.HashedStaticFilesStorage"
    # A different file gets a different key: it really is generated, not a constant.
    other = settings_under({**env, "SECRET_KEY_FILE": str(tmp_path / "other")}, tmp_path)
    assert other["SECRET_KEY"] != first["SECRET_KEY"]


def test_a_secret_key_in_the_environment_wins_and_no_file_is_written(tmp_path):
    key_file = tmp_path / "secret_key"
    env = {
        "DEBUG": "false",
        "LOCAL_HTTP": "true",
        "SECRET_KEY_FILE": str(key_file),
        "SECRET_KEY": PRODUCTION_ENV["SECRET_KEY"],
    }
    assert settings_under(env, tmp_path)["SECRET_KEY"] == PRODUCTION_ENV["SECRET_KEY"]
    assert not key_file.exists()


def test_local_http_does_nothing_with_debug_on(tmp_path):
    key_file = tmp_path / "secret_key"
    env = {"DEBUG": "true", "LOCAL_HTTP": "true", "SECRET_KEY_FILE": str(key_file)}
    values = settings_under(env, tmp_path)
    assert values["DEBUG"] is True and values["SECRET_KEY"].startswith("django-insecure-")
    assert not key_file.exists()


def test_an_empty_key_file_is_refused(tmp_path):
    key_file = tmp_path / "secret_key"
    key_file.write_text("\n")
    env = {"DEBUG": "false", "LOCAL_HTTP": "true", "SECRET_KEY_FILE": str(key_file)}
    result = manage("check", env=env, tmp_path=tmp_path)
    assert result.returncode != 0
    assert "holds no usable secret key" in result.stderr


@pytest.mark.parametrize("hosts", ["table.example.org", "127.0.0.1,table.example.org", "0.0.0.0"])
def test_local_http_refuses_hosts_beyond_this_machine(tmp_path, hosts):
    env = {"DEBUG": "false", "LOCAL_HTTP": "true", "ALLOWED_HOSTS": hosts}
    env["SECRET_KEY_FILE"] = str(tmp_path / "secret_key")
    result = manage("check", env=env, tmp_path=tmp_path)
    assert result.returncode != 0
    assert "LOCAL_HTTP serves plain HTTP to this machine only" in result.stderr


def test_production_without_a_key_is_still_refused(tmp_path):
    # LOCAL_HTTP is opt-in: DEBUG off alone never falls back to a generated key.
    env = {"DEBUG": "false", "SECRET_KEY_FILE": str(tmp_path / "secret_key")}
    result = manage("check", env=env, tmp_path=tmp_path)
    assert result.returncode != 0 and "SECRET_KEY must be set" in result.stderr
    assert not (tmp_path / "secret_key").exists()


def test_the_default_key_file_is_git_ignored_and_not_committed():
    key_file = Path(django_settings.SECRET_KEY_FILE)
    assert key_file == ROOT / ".local" / "secret_key"
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and the repository")
    # check-ignore answers no for a tracked file, so this also says it was never committed.
    relative = str(key_file.relative_to(ROOT))
    result = subprocess.run(
        ["git", "check-ignore", "--quiet", relative], cwd=ROOT, capture_output=True, timeout=30
    )
    assert result.returncode == 0, f"{relative} must be git-ignored (.gitignore)"


HTTP_PROBE = """
from django.test import Client, override_settings
plain = {"default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
         "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
with override_settings(STORAGES=plain):  # no collectstatic manifest here; all else as served
    response = Client(HTTP_HOST=HOST, raise_request_exception=False).get("/accounts/login/")
csrf = response.cookies.get("csrftoken")
print("PROBE", response.status_code, response.get("Location"),
      response.get("Strict-Transport-Security"), bool(csrf and csrf["secure"]))
"""


def probe(env: dict[str, str], host: str, tmp_path: Path) -> str:
    code = f"HOST = {host!r}\n" + HTTP_PROBE
    result = manage("shell", "-c", code, env=env, tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("PROBE ")]
    return line


@requires_make
def test_make_run_mode_serves_plain_http_while_production_redirects_to_https(tmp_path):
    env = {**serve_env("run"), "SECRET_KEY_FILE": str(tmp_path / "secret_key")}
    local = settings_under(env, tmp_path)
    assert local["SECURE_SSL_REDIRECT"] is False and local["SECURE_HSTS_SECONDS"] == 0
    assert local["SESSION_COOKIE_SECURE"] is False and local["CSRF_COOKIE_SECURE"] is False
    assert local["SECURE_PROXY_SSL_HEADER"] is None  # nothing in front to vouch for HTTPS
    # The login page over plain HTTP: served, no HSTS, a cookie the browser sends back.
    assert probe(env, "127.0.0.1:8000", tmp_path) == "PROBE 200 None None False"
    # Production (no LOCAL_HTTP) on the same code: HTTPS only.
    production = settings_under(PRODUCTION_ENV, tmp_path)
    assert production["SECURE_SSL_REDIRECT"] is True and production["SESSION_COOKIE_SECURE"]
    assert probe(PRODUCTION_ENV, "table.example.org", tmp_path) == (
        "PROBE 301 https://table.example.org/accounts/login/ None False"
    )


@requires_make
def test_check_deploy_in_make_run_mode_flags_only_the_https_settings(tmp_path):
    env = {**serve_env("run"), "SECRET_KEY_FILE": str(tmp_path / "secret_key")}
    result = manage("check", "--deploy", env=env, tmp_path=tmp_path)
    output = result.stdout + result.stderr
    flagged = set(re.findall(r"security\.W\d+", output))
    # No HTTPS on loopback: exactly those warnings; the generated key and DEBUG pass.
    assert flagged == {"security.W004", "security.W008", "security.W012", "security.W016"}, output


@requires_make
@pytest.mark.parametrize("target", ["run", "dev"])
def test_mail_links_to_where_make_serves(target):
    """A digest's links (the scene, the one-click unsubscribe) lead to the port `make run`
    serves on, not to the default 8000 (`make run PORT=8411` mailed links to :8000); a
    SITE_URL the operator set wins."""

    def site_url(*args: str, env: dict[str, str] | None = None) -> str:
        out = subprocess.run(
            ["make", "--no-print-directory", "-n", target, *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, **(env or {})},
        ).stdout
        (line,) = [line for line in out.splitlines() if "/daphne " in line]
        words = shlex.split(line)
        return dict(w.split("=", 1) for w in words if ASSIGNMENT.match(w))["SITE_URL"]

    assert site_url("PORT=8411") == "http://127.0.0.1:8411"
    assert site_url("HOST=0.0.0.0", "PORT=8412") == "http://0.0.0.0:8412"
    mine = {"SITE_URL": "https://table.example.org"}
    assert site_url("PORT=8411", env=mine) == "https://table.example.org"
