"""Browser tests: Debian's Chromium driven by Playwright against a real daphne process.

pytest-django's live_server speaks HTTP only, so the app runs as a daphne subprocess on a free
port with its own file-based SQLite database (migrated first; launcher in tests/servers.py). Tests
set up data through the UI or through `manage.py` commands run against the same database
(`server.manage(...)`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import Server, start_daphne

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


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_daphne(tmp_path_factory.mktemp("daphne"))
    yield srv
    srv.stop()
