"""Browser tests: Debian's Chromium driven by Playwright against a real daphne process.

pytest-django's live_server speaks HTTP only, so the app runs as a daphne subprocess on a free
port with its own file-based SQLite database (migrated first). Tests set up data through the UI
or through `manage.py` commands run against the same database (`server.manage(...)`).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")

if not CHROMIUM.exists():
    pytest.skip(
        "Debian's chromium is not installed (/usr/bin/chromium); .ci/run installs it",
        allow_module_level=True,
    )


@pytest.fixture(scope="session", autouse=True)
def _allow_sync_orm_beside_playwright() -> Iterator[None]:
    # Sync Playwright runs an event loop in this thread; Django would refuse sync ORM calls.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "args": [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    url: str
    env: dict[str, str]
    process: subprocess.Popen

    def manage(self, *args: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout

    def shell(self, code: str) -> str:
        return self.manage("shell", "-c", code)


def start_daphne(tmp_path: Path, env_extra: dict[str, str] | None = None) -> Server:
    port = free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    }
    env.update(
        {
            "DEBUG": "true",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'browser.sqlite3'}",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(env_extra or {})
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    log = open(tmp_path / "daphne.log", "w")  # noqa: SIM115 - closed with the process
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "tabletop.asgi:application",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/accounts/login/", timeout=1)  # noqa: S310 - loopback
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(
                    "daphne did not start: " + (tmp_path / "daphne.log").read_text()
                ) from None
            time.sleep(0.2)
    return Server(url=url, env=env, process=process)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_daphne(tmp_path_factory.mktemp("daphne"))
    yield srv
    srv.process.terminate()
    try:
        srv.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        srv.process.kill()
