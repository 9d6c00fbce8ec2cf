"""Browser tests: Debian's Chromium driven by Playwright against a real daphne process.

pytest-django's live_server speaks HTTP only, so the app runs as a daphne subprocess on a free
port with its own file-based SQLite database (migrated first; launcher in tests/servers.py). Tests
set up data through the UI or through `manage.py` commands run against the same database
(`server.manage(...)`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
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


# --- every page's errors fail its test ---------------------------------------------------------

#: htmx's error events, re-raised on the page as console errors so the test sees them.
HTMX_ERRORS = (
    "htmx:oobErrorNoTarget",
    "htmx:responseError",
    "htmx:swapError",
    "htmx:sendError",
    "htmx:targetError",
    "htmx:onLoadError",
    "htmx:syntax:error",
)
_REPORT_HTMX_ERRORS = """
(() => {
  for (const name of HTMX_ERRORS) {
    document.addEventListener(name, (evt) => {
      const d = evt.detail || {};
      const what = d.content ? (d.content.id || d.content.outerHTML || "").slice(0, 120)
        : (d.xhr ? d.xhr.status + " " + (d.requestConfig && d.requestConfig.path) : "");
      console.error(name + " " + what);
    }, true);
  }
})();
""".replace("HTMX_ERRORS", json.dumps(list(HTMX_ERRORS)))


class PageErrors:
    """What went wrong in the pages of one test: console errors, uncaught exceptions, htmx's
    error events and failed requests. Empty at the end of every browser test, unless the test
    says which ones it causes on purpose (``expect``)."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.expected: list[re.Pattern[str]] = []
        self.contexts: list = []  # closed when the test ends (``close_after_test``)

    def expect(self, pattern: str) -> None:
        """An error this test causes on purpose (a 404 page, a stopped server): a regex."""
        self.expected.append(re.compile(pattern))

    def expect_outage(self) -> None:
        """The test stops its server: the browser logs each refused connection, and a request
        the page makes then (a roll form's odds), or had in flight as it stopped, fails."""
        for pattern in OUTAGE_ERRORS:
            self.expect(pattern)

    def watch(self, context) -> None:
        context.add_init_script(_REPORT_HTMX_ERRORS)
        context.on("console", self._console)
        context.on("weberror", lambda error: self.seen.append(f"uncaught: {error.error}"))
        context.on("requestfailed", self._failed)

    def _console(self, message) -> None:
        if message.type == "error":
            self.seen.append(f"console: {message.text} ({message.location.get('url', '')})")

    def _failed(self, request) -> None:
        failure = request.failure or ""
        if "ERR_ABORTED" in failure:
            return  # the page cancelled it (a navigation, reload or download the test moved on)
        self.seen.append(f"request failed: {request.method} {request.url} {failure}")

    def unexpected(self) -> list[str]:
        return [e for e in self.seen if not any(p.search(e) for p in self.expected)]


#: What a server stopped on purpose shows in the browser (``PageErrors.expect_outage``).
OUTAGE_ERRORS = (
    r"WebSocket connection to .* failed",
    # Refused while it is down; cut off (reset, closed before any answer, or its socket gone
    # as the request was written) as it stops: an odds request, or the favicon, on its way then.
    r"ERR_(CONNECTION_REFUSED|CONNECTION_RESET|CONNECTION_CLOSED|EMPTY_RESPONSE|SOCKET_NOT_CONNECTED)",
    "htmx:",
    "Event",
)

_current_errors: list[PageErrors] = []


def close_after_test(context):
    """Close a context the test opened itself (a seat at the table) when the test ends: a page
    left open keeps its socket and pings the shared server for the rest of the run."""
    if _current_errors:
        _current_errors[-1].contexts.append(context)
    return context


def _watching(new_context):
    @functools.wraps(new_context)
    def wrapper(self, *args, **kwargs):
        context = new_context(self, *args, **kwargs)
        if _current_errors:
            _current_errors[-1].watch(context)
        return context

    return wrapper


@pytest.fixture(scope="session", autouse=True)
def _every_context_watched() -> Iterator[None]:
    # Tests open contexts through pytest-playwright's fixtures and through browser.new_context()
    # (a seat per member): both go through Browser.new_context, watched here for every test.
    from playwright.sync_api import Browser

    original = Browser.new_context
    Browser.new_context = _watching(original)
    yield
    Browser.new_context = original


@pytest.fixture(autouse=True)
def page_errors() -> Iterator[PageErrors]:
    """Fails the test on any console error, uncaught exception, htmx error event or failed
    request in any of its pages (request the fixture to ``expect`` one on purpose)."""
    errors = PageErrors()
    _current_errors.append(errors)
    yield errors
    _current_errors.remove(errors)
    for context in errors.contexts:
        with contextlib.suppress(Exception):  # already closed by the test
            context.close()
    unexpected = errors.unexpected()
    assert not unexpected, "errors in the browser:\n" + "\n".join(unexpected)
