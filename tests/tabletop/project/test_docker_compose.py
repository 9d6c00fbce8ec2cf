"""No Docker engine runs here, so the compose file is checked by parsing it."""

import re
from pathlib import Path

import yaml

from tabletop.scenes.consumers import DAPHNE_MAX_MESSAGE_BYTES, MAX_FRAME_BYTES

ROOT = Path(__file__).resolve().parents[3]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SETTINGS_SOURCE = (ROOT / "tabletop" / "settings.py").read_text()


def test_services_present():
    assert set(COMPOSE["services"]) == {"db", "redis", "migrate", "web", "proxy"}


def test_web_scales_and_is_daphne_behind_proxy():
    web = COMPOSE["services"]["web"]
    assert "ports" not in web, "replicas can't share a host port; the proxy publishes it"
    assert web["command"][0] == "daphne"
    assert "tabletop.asgi:application" in web["command"]
    # daphne's --proxy-headers would believe the leftmost X-Forwarded-For entry, which the client
    # writes: the app reads the proxy's own entry instead (TRUSTED_PROXIES).
    assert "--proxy-headers" not in web["command"]
    assert web["environment"]["TRUSTED_PROXIES"]
    assert COMPOSE["services"]["proxy"]["ports"]
    assert web["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def test_web_caps_websocket_messages_just_above_the_apps_frame_limit():
    # A frame over the app's cap but under daphne's gets the app's error frame; daphne's default
    # cap (1 MiB) would buffer far more, and drops the socket without one.
    command = COMPOSE["services"]["web"]["command"]
    flag = "--websocket-max-message-size"
    assert flag in command
    cap = int(command[command.index(flag) + 1])
    assert MAX_FRAME_BYTES < cap == DAPHNE_MAX_MESSAGE_BYTES < 1024 * 1024


def test_migrate_is_one_shot():
    migrate = COMPOSE["services"]["migrate"]
    assert migrate["command"][-2:] == ["migrate", "--noinput"]
    assert migrate["restart"] == "no"


def test_env_names_match_settings():
    env = COMPOSE["services"]["web"]["environment"]
    for name in env:
        assert re.search(rf"[\"']{name}[\"']", SETTINGS_SOURCE), f"{name} is not read by settings"
    for needed in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS"):
        assert needed in env
    assert env["DEBUG"] == "false"
    assert env["DATABASE_URL"].startswith("postgres://") and "@db:5432/" in env["DATABASE_URL"]
    assert env["REDIS_URL"].startswith("redis://redis:6379")


def test_proxy_passes_websockets():
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    # The client's address replaces the header, never appended to what the client sent.
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in nginx
    assert "proxy_set_header Upgrade $http_upgrade" in nginx
    assert "http://web:8000" in nginx
