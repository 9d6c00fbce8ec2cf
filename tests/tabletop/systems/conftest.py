"""The scene fixtures (sockets, closing database connections after async tests) serve the
system packages' tests too; ``script`` makes the next socket roll show the given faces."""

import pytest

from tests.support.dice import Faces, script_dice
from tests.tabletop.scenes.conftest import close_db_after  # noqa: F401 - a fixture


@pytest.fixture
def script(monkeypatch):
    """Make the next socket roll use these faces (tests.support.dice.script_dice)."""

    def use(*faces: int) -> None:
        script_dice(monkeypatch, Faces(*faces))

    return use
