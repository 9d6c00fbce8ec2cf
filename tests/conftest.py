"""Suite-wide test configuration (no Django here: tests/rules runs without it).

Browser tests (under tests/browser/, marker ``browser``) run after everything else: sync
Playwright leaves an event loop running that would break later asyncio tests. A test of the
fast paths (one that takes the ``fast_paths`` fixture, tests/tabletop/conftest.py) is a
``services`` test too: `make test-services` runs it on PostgreSQL, with PostgreSQL's paths.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in item.nodeid.replace("\\", "/"):
            item.add_marker(pytest.mark.browser)
        if "fast_paths" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.services)
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
