"""Configuration for the Django tests.

Tests marked ``services`` need the real PostgreSQL and Redis; `make test-services` (called by
.ci/run) runs them with DATABASE_URL/REDIS_URL set, and they skip with the reason otherwise.
"""

from __future__ import annotations

import pytest
from django.conf import settings


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
