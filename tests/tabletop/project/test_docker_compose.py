"""No Docker engine runs here, so the compose file is checked by parsing it."""

import re
from pathlib import Path

import yaml

from tabletop.scenes.consumers import DAPHNE_MAX_MESSAGE_BYTES, MAX_FRAME_BYTES

ROOT = Path(__file__).resolve().parents[3]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SETTINGS_SOURCE = (ROOT / "tabletop" / "settings.py").read_text()


def test_services_present():
    assert set(COMPOSE["services"]) == {"db", "redis", "migrate", "web", "proxy", "backup"}
    # The backup service is a tool run on demand (`docker compose run --rm backup`), never up.
    assert COMPOSE["services"]["backup"]["profiles"] == ["tools"]


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


def test_migrate_is_one_shot_and_backs_up_first():
    migrate = COMPOSE["services"]["migrate"]
    # `upgrade`: a backup before migrating a database that holds data, into the volume.
    assert migrate["command"][-2:] == ["manage.py", "upgrade"]
    assert migrate["restart"] == "no"
    assert "backups:/app/backups" in migrate["volumes"]
    assert "backups" in COMPOSE["volumes"]


def test_scheduled_backups_write_into_the_same_volume():
    backup = COMPOSE["services"]["backup"]
    assert backup["command"][-2:] == ["manage.py", "backup"]
    assert "backups:/app/backups" in backup["volumes"]
    assert (
        backup["environment"]["DATABASE_URL"]
        == COMPOSE["services"]["web"]["environment"]["DATABASE_URL"]
    )
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    # The volume takes its owner from the image's directory: the app's user writes there.
    assert "chown tabletop /app/backups" in dockerfile


def test_web_health_is_checked_at_the_app_s_health_endpoint():
    from tabletop.operating.health import PATH

    web = COMPOSE["services"]["web"]
    check = " ".join(web["healthcheck"]["test"])
    assert f"http://127.0.0.1:8000{PATH}" in check
    # The proxy waits for a healthy replica; a stopping one gets time to close with 1012.
    assert COMPOSE["services"]["proxy"]["depends_on"]["web"]["condition"] == "service_healthy"
    assert web["stop_grace_period"]


def test_backups_stay_out_of_git_and_the_image():
    assert "/backups/" in (ROOT / ".gitignore").read_text().splitlines()
    assert "backups" in (ROOT / ".dockerignore").read_text().splitlines()


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
