"""A small daphne launcher for the fan-out benchmark, plus what /proc says about a process."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> int:
    """Resident set size of a process (VmRSS in /proc/<pid>/status), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def raise_open_files(needed: int) -> int:
    """Raise this process's soft limit on open files towards ``needed`` (never above the hard
    limit, which only root may raise): each socket is a file, and daphne and the load generator
    inherit the limit. Returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        soft = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


def machine_busy_seconds() -> float:
    """CPU time every core of the machine has spent busy so far (all processes, /proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / CLOCK_TICKS


class Daphne:
    """One daphne process serving ``app`` on 127.0.0.1; its log goes to ``log_path``.

    ``supervise``: a watcher thread starts a new process on the same port whenever the current
    one exits without ``stop`` (a deploy, as the storm cell plays it: SIGTERM, then a new
    process); ``restarts`` lists the exits it saw. ``pid`` is the current process's."""

    def __init__(
        self, app: str, env: dict[str, str], log_path: Path, supervise: bool = False
    ) -> None:
        self.app = app
        self.env = env
        self.log_path = log_path
        self.port = free_port()
        self.supervise = supervise
        self.proc: subprocess.Popen[bytes] | None = None
        self.restarts: list[dict[str, Any]] = []
        self._stopping = False
        self._lock = threading.Lock()
        self._watcher: threading.Thread | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self, timeout: float = 30.0) -> Daphne:
        self._spawn(timeout)
        if self.supervise:
            self._watcher = threading.Thread(target=self._watch, args=(timeout,), daemon=True)
            self._watcher.start()
        return self

    def _spawn(self, timeout: float) -> None:
        daphne = Path(sys.executable).with_name("daphne")
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [
                str(daphne),
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                # consumers.DAPHNE_MAX_MESSAGE_BYTES, as in production
                "--websocket-max-message-size",
                "65536",
                self.app,
            ],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"daphne exited at start; see {self.log_path}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        self._terminate()
        raise RuntimeError(f"daphne did not listen on {self.port} within {timeout} s")

    def _watch(self, timeout: float) -> None:
        """Start a new process on the same port whenever the current one exits unasked."""
        while True:
            proc = self.proc
            assert proc is not None
            proc.wait()
            with self._lock:
                if self._stopping:
                    return
                exited = {"pid": proc.pid, "returncode": proc.returncode, "at": time.time()}
                try:
                    self._spawn(timeout)
                except RuntimeError as exc:  # the next stop() has nothing to stop
                    self.restarts.append({**exited, "failed": str(exc)})
                    return
                self.restarts.append({**exited, "new_pid": self.pid})

    def stop(self) -> None:
        with self._lock:
            self._stopping = True
            self._terminate()
        if self._watcher is not None:
            self._watcher.join(timeout=15)

    def _terminate(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def listening_pid(port: int) -> int | None:
    """The process (of those this user may look into) listening on 127.0.0.1:``port``: the
    listening socket's inode in /proc/net/tcp, then the process holding it among /proc/*/fd."""
    wanted = f"0100007F:{port:04X}"
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == wanted and fields[3] == "0A":  # 0A: LISTEN
            inode = fields[9]
            break
    if inode is None:
        return None
    target = f"socket:[{inode}]"
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                if os.readlink(fd) == target:
                    return int(proc.name)
        except OSError:  # another user's process, or gone meanwhile
            continue
    return None
