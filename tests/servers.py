"""Real processes for tests: daphne serving the app, a private redis-server, throw-away
PostgreSQL databases, and a private PostgreSQL server that a test may restart or pause.

No Django at import (tests/rules runs with ``-p no:django``): everything here talks to the app
through subprocesses (``manage.py``, daphne) and the network. The browser tests and the
multi-process tests (tests/services) share this launcher.

A ``Server`` keeps the env it was started with, so ``server.another()`` starts a second daphne
on the same database and channel layer (another port), and ``kill()``/``stop()`` followed by
``restart()`` brings a process back on the same port, as a supervisor would.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
READY_PATH = "/accounts/login/"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _spawn_daphne(env: dict[str, str], port: int, log_path: Path) -> subprocess.Popen:
    log = open(log_path, "a")  # noqa: SIM115 - the child keeps its own copy of the descriptor
    try:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                # consumers.DAPHNE_MAX_MESSAGE_BYTES, as in production (no Django imported here)
                "--websocket-max-message-size",
                "65536",
                "tabletop.asgi:application",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    finally:
        log.close()


def _wait_until_serving(url: str, process: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + READY_PATH, timeout=1)  # noqa: S310 - loopback
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                process.wait()
                raise RuntimeError("daphne did not start: " + log_path.read_text()) from None
            time.sleep(0.2)


@dataclass
class Server:
    """One daphne process; ``env`` is its whole environment (database, channel layer)."""

    url: str
    env: dict[str, str]
    process: subprocess.Popen
    port: int = 0
    log_path: Path | None = None

    @property
    def ws_url(self) -> str:
        return "ws" + self.url.removeprefix("http")

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

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path else ""

    def another(self) -> Server:
        """A second daphne process with the same env (same database and layer), another port."""
        port = free_port()
        log_path = self.log_path.with_name(f"daphne-{port}.log")
        return _serve(self.env, port, log_path)

    def stop(self) -> None:
        """A clean shutdown (SIGTERM), SIGKILL if it hangs."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def kill(self) -> None:
        """A crash: SIGKILL, no chance to close sockets or leave groups."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def restart(self) -> None:
        """Start the process again on the same port (after ``stop`` or ``kill``)."""
        self.stop()
        self.process = _spawn_daphne(self.env, self.port, self.log_path)
        _wait_until_serving(self.url, self.process, self.log_path)


def _serve(env: dict[str, str], port: int, log_path: Path) -> Server:
    process = _spawn_daphne(env, port, log_path)
    url = f"http://127.0.0.1:{port}"
    _wait_until_serving(url, process, log_path)
    return Server(url=url, env=env, process=process, port=port, log_path=log_path)


def app_env(tmp_path: Path, env_extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment the app runs with: a file SQLite in ``tmp_path`` unless ``env_extra``
    says otherwise (e.g. DATABASE_URL, REDIS_URL, CHANNEL_LAYER)."""
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
    return env


def migrate(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )


def start_daphne(
    tmp_path: Path, env_extra: dict[str, str] | None = None, *, migrate_first: bool = True
) -> Server:
    """Migrate (unless told not to), then serve the app on a free port (see ``app_env``)."""
    env = app_env(tmp_path, env_extra)
    if migrate_first:
        migrate(env)
    log_path = tmp_path / "daphne.log"
    log_path.write_text("")
    return _serve(env, free_port(), log_path)


# --- a private Redis ----------------------------------------------------------------------------


def redis_server_binary() -> str | None:
    return shutil.which("redis-server")


@dataclass
class RedisServer:
    """A throw-away redis-server on its own port (never the shared one), without persistence,
    so a restart starts empty: what a crashed Redis without a volume comes back as."""

    port: int
    log_path: Path
    process: subprocess.Popen | None = field(default=None)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = redis_server_binary()
        assert binary, "redis-server is not installed"
        log = open(self.log_path, "a")  # noqa: SIM115 - the child keeps its own copy
        try:
            self.process = subprocess.Popen(
                [
                    binary,
                    "--port",
                    str(self.port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--daemonize",
                    "no",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        finally:
            log.close()
        deadline = time.monotonic() + 10
        while not self.answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("redis-server did not start: " + self.log_path.read_text())
            time.sleep(0.05)

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def subscriptions(self) -> set[str]:
        """The pub/sub channels someone is subscribed to (the pubsub layer's groups, sockets)."""
        import redis

        with redis.Redis(port=self.port, socket_timeout=2, decode_responses=True) as client:
            return set(client.pubsub_channels())

    def queued_messages(self) -> int:
        """Messages waiting in channels_redis core's per-process queues (keys ``...!``)."""
        import redis

        with redis.Redis(port=self.port, socket_timeout=2) as client:
            return sum(client.zcard(key) for key in client.scan_iter(match="*!"))

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)  # a paused one dies too
            self.process.kill()
            self.process.wait()

    def pause(self) -> None:
        """Stop answering without closing a connection: what a stalled Redis looks like."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)


def start_redis(tmp_path: Path) -> RedisServer:
    redis = RedisServer(port=free_port(), log_path=tmp_path / "redis.log")
    redis.start()
    return redis


# --- throw-away PostgreSQL databases ------------------------------------------------------------


@dataclass
class Postgres:
    """A PostgreSQL server (from a DATABASE_URL) on which tests create and drop databases."""

    database_url: str

    def url(self, name: str) -> str:
        return urlunsplit(urlsplit(self.database_url)._replace(path="/" + name))

    def _admin(self):  # noqa: ANN202 - a psycopg connection, imported late (optional for rules)
        import psycopg

        return psycopg.connect(self.url("postgres"), autocommit=True, connect_timeout=3)

    def answers(self) -> bool:
        try:
            with self._admin() as conn:
                conn.execute("SELECT 1")
            return True
        except Exception:
            return False

    def create(self, name: str, *, template: str | None = None) -> str:
        """Create database ``name`` (a copy of ``template`` if given); returns its URL."""
        assert name.isidentifier(), name
        sql = f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")
        with self._admin() as conn:
            conn.execute(sql)
        return self.url(name)

    def drop(self, name: str) -> None:
        assert name.isidentifier(), name
        with self._admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def unique_name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


# --- a private PostgreSQL server ----------------------------------------------------------------


def postgres_bin_dir() -> Path | None:
    """Where initdb and postgres are: on PATH, else Debian's newest /usr/lib/postgresql/N/bin
    (the postgresql package leaves them off PATH)."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda initdb: int(initdb.parts[-3]) if initdb.parts[-3].isdigit() else 0,
    )
    return versions[-1].parent if versions else None


def private_postgres_unavailable() -> str | None:
    """Why a private PostgreSQL cannot start here (a skip reason), or None."""
    if postgres_bin_dir() is None:
        return "needs PostgreSQL's initdb (Debian: apt install postgresql)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "PostgreSQL refuses to run as root, and there is no postgres user to run it as"
    return None


def _descendants(pid: int) -> list[int]:
    """The processes under ``pid`` (a postmaster's backends and workers), from /proc."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
            ppid = int(stat.read_text().rpartition(")")[2].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # the process ended while we looked
        parents.setdefault(ppid, []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found.extend(children)
        todo.extend(children)
    return found


@dataclass
class PrivatePostgres(Postgres):
    """A throw-away PostgreSQL server on its own port (never the shared one), trust auth, TCP on
    127.0.0.1 only, which a test may restart or pause. Runs as the ``postgres`` user when we are
    root (PostgreSQL refuses root). Its data lives in ``base`` under the system's temp dir:
    pytest's own temp dirs are root's alone (0700), which the postgres user cannot enter."""

    port: int
    base: Path
    log_path: Path
    process: subprocess.Popen | None = None
    _paused: list[int] = field(default_factory=list, repr=False)  # what pause() stopped

    @property
    def data_dir(self) -> Path:
        return self.base / "data"

    def _as_owner(self) -> dict[str, object]:
        """Popen arguments that run a program as the data directory's owner."""
        if os.geteuid() != 0:
            return {}
        owner = pwd.getpwnam("postgres")
        return {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}

    def own_base(self) -> None:
        """Give ``base`` to the user postgres runs as (it writes there)."""
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.base, owner.pw_uid, owner.pw_gid)

    def init(self) -> None:
        self.own_base()
        result = subprocess.run(
            [
                str(postgres_bin_dir() / "initdb"),
                "-D",
                str(self.data_dir),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-locale",
                "--encoding=UTF8",
                "--no-sync",  # a test server: no fsync of the new files (seconds saved)
            ],
            cwd=self.base,
            capture_output=True,
            text=True,
            timeout=120,
            **self._as_owner(),
        )
        if result.returncode != 0:
            raise RuntimeError("initdb failed: " + result.stdout + result.stderr)

    def start(self) -> None:
        log = open(self.log_path, "a")  # noqa: SIM115 - the child keeps its own copy
        try:
            self.process = subprocess.Popen(
                [
                    str(postgres_bin_dir() / "postgres"),
                    "-D",
                    str(self.data_dir),
                    "-p",
                    str(self.port),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    "unix_socket_directories=",  # TCP only: no socket file in a shared dir
                    "-c",
                    "fsync=off",  # a test server: a crash of the machine may lose it
                ],
                cwd=self.base,
                stdout=log,
                stderr=subprocess.STDOUT,
                **self._as_owner(),
            )
        finally:
            log.close()
        deadline = time.monotonic() + 30
        while not self.answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("postgres did not start: " + self.log_path.read_text())
            time.sleep(0.1)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """A fast shutdown (SIGINT, as ``pg_ctl stop -m fast``): open transactions roll back and
        every connection is closed; SIGKILL if it hangs."""
        if not self.running:
            return
        self.resume()  # a stopped process would not handle the signal
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def restart(self) -> None:
        """Fast shutdown, then start again on the same port and data: every open connection is
        cut, as when an operator restarts the database under a running site."""
        self.stop()
        self.start()

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): the postmaster first, so it forks nothing new, then every
        backend and worker. The kernel still accepts TCP connections and ACKs what clients
        send, but nothing answers: a hung database, not a dead one."""
        assert self.running and not self._paused, "pause a running server once"
        self.process.send_signal(signal.SIGSTOP)
        self._paused = [self.process.pid]
        for pid in _descendants(self.process.pid):
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:
                continue
            self._paused.append(pid)

    def resume(self) -> None:
        """Undo ``pause`` (SIGCONT to every process it stopped); nothing if not paused."""
        paused, self._paused = self._paused, []
        for pid in reversed(paused):  # the postmaster last: its backends are running by then
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                continue

    def remove(self) -> None:
        """Stop the server and delete its data."""
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)


def start_postgres(tmp_path: Path, *, copy_of: PrivatePostgres | None = None) -> PrivatePostgres:
    """Start a private PostgreSQL (``private_postgres_unavailable`` says whether it can): a new
    cluster (initdb), or a copy of ``copy_of``'s data, which must be stopped (a clean copy, with
    its databases as they are: a migrated one copied in a blink instead of migrated again).
    Its log goes to ``tmp_path``, its data to a temp dir that ``remove()`` deletes."""
    port = free_port()
    server = PrivatePostgres(
        database_url=f"postgres://postgres@127.0.0.1:{port}/postgres",
        port=port,
        base=Path(tempfile.mkdtemp(prefix="tabletop-postgres-")),
        log_path=tmp_path / "postgres.log",
    )
    try:
        if copy_of is None:
            server.init()
        else:
            assert not copy_of.running, "copy a stopped server's data"
            # cp -a keeps the owner and modes, which postgres checks on its data directory.
            subprocess.run(
                ["cp", "-a", str(copy_of.data_dir), str(server.data_dir)],
                check=True,
                capture_output=True,
                timeout=120,
            )
            server.own_base()
        server.start()
    except BaseException:
        server.remove()
        raise
    return server
