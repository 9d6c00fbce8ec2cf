"""The scene fixtures (sockets, closing database connections after async tests) serve the
system packages' tests too."""

from tests.tabletop.scenes.conftest import close_db_after  # noqa: F401 - a fixture
