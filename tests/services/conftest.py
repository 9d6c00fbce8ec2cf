"""Fixtures for tests across real processes (marker ``services``, run by `make test-services`).

Each test gets its own PostgreSQL database, copied from a template migrated once per session,
and daphne subprocesses (tests/servers.py) on it. A test that restarts or pauses PostgreSQL gets
a private server instead (``private_postgres``), started on a copy of a cluster migrated once per
session, and its daphnes from ``private_daphnes``. Without PostgreSQL (DATABASE_URL), Redis
(REDIS_URL), the redis-server binary or initdb the tests skip with the reason, so `make test`
leaves them to `make test-services`.
"""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.servers import (
    Postgres,
    PrivatePostgres,
    RedisServer,
    Server,
    app_env,
    migrate,
    private_postgres_unavailable,
    redis_server_binary,
    start_daphne,
    start_postgres,
    start_redis,
    unique_name,
)
from tests.services.live import LiveTable


@pytest.fixture(scope="session")
def postgres() -> Postgres:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        pytest.skip("needs PostgreSQL: `make test-services` sets DATABASE_URL, as .ci/run does")
    server = Postgres(url)
    if not server.answers():
        pytest.skip(f"PostgreSQL at {urlsplit(url).netloc} does not answer")
    return server


@pytest.fixture(scope="session")
def migrated_template(
    postgres: Postgres, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A database migrated once; each test copies it (CREATE DATABASE ... TEMPLATE)."""
    name = unique_name("tabletop_template")
    url = postgres.create(name)
    try:
        migrate(app_env(tmp_path_factory.mktemp("migrate"), {"DATABASE_URL": url}))
        yield name
    finally:
        postgres.drop(name)


@pytest.fixture
def database_url(postgres: Postgres, migrated_template: str) -> Iterator[str]:
    name = unique_name("tabletop_live")
    url = postgres.create(name, template=migrated_template)
    yield url
    postgres.drop(name)


@pytest.fixture(scope="session")
def shared_redis_url() -> str:
    url = os.environ.get("REDIS_URL", "")
    if not url:
        pytest.skip("needs Redis: `make test-services` sets REDIS_URL, as .ci/run does")
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname, parts.port or 6379), timeout=2) as sock:
            sock.sendall(b"PING\r\n")
            answered = sock.recv(16).startswith(b"+PONG")
    except OSError:
        answered = False
    if not answered:
        pytest.skip(f"Redis at {parts.netloc} does not answer")
    return url


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of this test's own, which it may stop and start (never the shared one)."""
    if redis_server_binary() is None:
        pytest.skip("needs the redis-server binary (Debian: apt install redis-server)")
    redis = start_redis(tmp_path)
    yield redis
    redis.stop()


class Daphnes:
    """Starts daphne processes on this test's database; teardown stops every one of them."""

    def __init__(self, tmp_path: Path, database_url: str) -> None:
        self.tmp_path = tmp_path
        self.database_url = database_url
        self.started: list[Server] = []

    def start(self, **env: str) -> Server:
        # Its own key prefix: other runs on a shared Redis never see this test's groups.
        env = {"CHANNEL_LAYER_PREFIX": unique_name("tabletop_test"), **env}
        server = start_daphne(
            self.tmp_path, {"DATABASE_URL": self.database_url, **env}, migrate_first=False
        )
        self.started.append(server)
        return server

    def another(self, server: Server) -> Server:
        """A second process with exactly ``server``'s env (database, Redis, layer, prefix)."""
        second = server.another()
        self.started.append(second)
        return second

    def stop_all(self) -> None:
        for server in self.started:
            server.process.kill()  # a still-stopped (SIGSTOP) process must not hang teardown
            server.process.wait()
            # Shown only when the test fails.
            print(f"--- {server.log_path.name} ---\n{server.log()[-6000:]}")


@pytest.fixture
def daphnes(tmp_path: Path, database_url: str) -> Iterator[Daphnes]:
    processes = Daphnes(tmp_path, database_url)
    yield processes
    processes.stop_all()


#: The database the private servers' migrated cluster holds.
PRIVATE_DATABASE = "tabletop"


@pytest.fixture(scope="session")
def migrated_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivatePostgres]:
    """A private PostgreSQL whose database PRIVATE_DATABASE is migrated, then stopped: each
    test's ``private_postgres`` starts on a copy of its data (initdb and migrate once)."""
    reason = private_postgres_unavailable()
    if reason is not None:
        pytest.skip(reason)
    directory = tmp_path_factory.mktemp("postgres")
    cluster = start_postgres(directory)
    try:
        url = cluster.create(PRIVATE_DATABASE)
        migrate(app_env(directory, {"DATABASE_URL": url}))
        cluster.stop()
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture
def private_postgres(
    migrated_cluster: PrivatePostgres, tmp_path: Path
) -> Iterator[PrivatePostgres]:
    """A PostgreSQL server of this test's own (never the shared one), with PRIVATE_DATABASE
    migrated, which the test may restart or pause; removed at the end, even paused."""
    server = start_postgres(tmp_path, copy_of=migrated_cluster)
    yield server
    server.remove()
    print(f"--- postgres.log ---\n{server.log_path.read_text()[-4000:]}")  # shown on failure


@pytest.fixture
def private_daphnes(tmp_path: Path, private_postgres: PrivatePostgres) -> Iterator[Daphnes]:
    """Daphne processes on ``private_postgres``'s database; stopped before the server is."""
    processes = Daphnes(tmp_path, private_postgres.url(PRIVATE_DATABASE))
    yield processes
    processes.stop_all()


@pytest.fixture
async def tables() -> AsyncIterator[list[LiveTable]]:
    """Tables a test opens (append them): their sockets are closed at the end."""
    opened: list[LiveTable] = []
    yield opened
    for table in opened:
        await table.close()
