"""Configuration for the Django tests.

Tests marked ``services`` need the real PostgreSQL and Redis; `make test-services` (called by
.ci/run) runs them with DATABASE_URL/REDIS_URL set, and they skip with the reason otherwise.
``at_once`` runs the same work in several threads released together, for their races.
``fast_paths`` runs a test once per implementation of the fast paths (tabletop/scenes/fastpath):
the portable twin on any database, PostgreSQL's where it runs, with the same assertions.
"""

from __future__ import annotations

import threading

import pytest
from django.conf import settings
from django.db import connection


def postgres_in_use() -> bool:
    return settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def redis_in_use() -> bool:
    return bool(getattr(settings, "REDIS_URL", ""))


requires_postgres = pytest.mark.skipif(
    not postgres_in_use(),
    reason="needs PostgreSQL: `make test-services` sets DATABASE_URL, as .ci/run does",
)
requires_redis = pytest.mark.skipif(
    not redis_in_use(),
    reason="needs Redis: `make test-services` sets REDIS_URL, as .ci/run does",
)


def at_once(count: int, work) -> tuple[list[object], list[BaseException]]:
    """Run ``work`` in ``count`` threads released at the same instant; collect what happened."""
    start = threading.Barrier(count)
    done: list[object] = []
    errors: list[BaseException] = []

    def run():
        try:
            start.wait()
            done.append(work())
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return done, errors


@pytest.fixture(params=["portable", "postgresql"])
def fast_paths(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """The fast paths the test's commands take: each implementation in turn (its name is the
    test's parameter). PostgreSQL's run in `make test-services`; the portable twin everywhere."""
    from tabletop.scenes import fastpath

    if request.param == "postgresql" and not postgres_in_use():
        pytest.skip("PostgreSQL's fast paths: `make test-services`; the portable twin ran here")
    chosen = next(p for p in (fastpath.PORTABLE, fastpath.POSTGRESQL) if p.name == request.param)
    monkeypatch.setattr(fastpath, "paths", lambda: chosen)
    # A socket's opening and presence: on the event loop with PostgreSQL's paths, on the
    # database thread with the portable twin's (fastpath.onloop).
    monkeypatch.setenv("LOOP_STATEMENTS", "1" if chosen is fastpath.POSTGRESQL else "0")
    return chosen


@pytest.fixture(autouse=True)
def _no_scene_kept_from_another_test(monkeypatch: pytest.MonkeyPatch):
    # The process keeps scenes as it last saw them (fastpath.scenes); a test starts with none,
    # so the statements it counts do not depend on the tests before it.
    from tabletop.scenes.fastpath import scenes

    monkeypatch.setattr(scenes, "_seen", {})


@pytest.fixture(autouse=True)
def _no_tail_kept_from_another_test(monkeypatch: pytest.MonkeyPatch):
    # Nor any stretch of a scene's log read for a catch-up (feed.replay._tails): a new test's
    # scene may have an earlier test's id.
    from tabletop.scenes.feed import replay

    monkeypatch.setattr(replay, "_tails", {})


@pytest.fixture(autouse=True)
def _no_loop_connection_left():
    # A socket's statements on PostgreSQL run on connections of the test's own event loop
    # (fastpath.onloop), which ends with the test: close them, or the test database could not
    # be dropped at the end of the run.
    yield
    from tabletop.scenes.fastpath import onloop

    onloop.close_all()


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    # Tests create many users; production keeps Django's slow, strong default.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings, request: pytest.FixtureRequest):
    """Unit tests use the in-memory layer unless they test Redis on purpose."""
    if request.node.get_closest_marker("services") is None:
        settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    yield
