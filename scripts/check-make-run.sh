#!/usr/bin/env bash
# The README's first command on a fresh clone: clone the committed HEAD into a temporary folder,
# run `make run` there (a venv of its own, migrate, collectstatic, daphne with DEBUG off) on a
# free port, and wait until the login page and the stylesheet it links answer 200. Then stop it.
# A clone, not this working tree: what a new user gets is what is committed, with no .venv,
# staticfiles/ or db.sqlite3 left over from earlier runs. Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
WAIT_SECONDS=${WAIT_SECONDS:-600}  # a first `make run` installs every dependency

work=$(mktemp -d "${TMPDIR:-/tmp}/tabletop-fresh.XXXXXX")
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill -TERM -- "-$server_pid" 2>/dev/null || true
    for _ in $(seq 20); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

git clone --quiet --no-hardlinks . "$work/tabletop"
port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log="$work/make-run.log"
echo "check-make-run: make run on a fresh clone of $(git rev-parse --short HEAD), port $port"
# setsid: make and daphne under it in a process group of their own (its id is $!), stopped whole.
setsid make -C "$work/tabletop" run PORT="$port" PYTHON="$PYTHON" </dev/null >"$log" 2>&1 &
server_pid=$!

if ! "$PYTHON" - "$port" "$server_pid" "$WAIT_SECONDS" <<'EOF'
"""Poll the fresh server: the login page with DEBUG off, then the stylesheet it links."""
import os
import re
import sys
import time
import urllib.request

port, pid, wait = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
base = f"http://127.0.0.1:{port}"
deadline = time.monotonic() + wait


def alive() -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


while True:
    try:
        with urllib.request.urlopen(base + "/accounts/login/", timeout=5) as response:
            status, page = response.status, response.read().decode()
        break
    except OSError:
        if not alive():
            sys.exit("make run stopped before it served a page")
        if time.monotonic() > deadline:
            sys.exit(f"make run served no page within {wait:.0f} s")
        time.sleep(0.5)
if status != 200:
    sys.exit(f"the login page answered {status}")
# DEBUG off serves collectstatic's hashed names (app.<hash>.css); DEBUG on would not.
css = re.findall(r'<link[^>]+href="(/static/[^"]+\.[0-9a-f]{12}\.css)"', page)
if not css:
    sys.exit("the login page links no hashed stylesheet: is DEBUG off and collectstatic run?")
for path in css:
    with urllib.request.urlopen(base + path, timeout=5) as response:
        if response.status != 200:
            sys.exit(f"{path} answered {response.status}")
print(f"check-make-run: the login page and {len(css)} stylesheet(s) answered 200")
EOF
then
  echo "check-make-run: FAILED; the end of make run's output:" >&2
  tail -40 "$log" >&2
  exit 1
fi
