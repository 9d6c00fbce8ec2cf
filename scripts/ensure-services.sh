#!/usr/bin/env bash
# Make sure PostgreSQL (127.0.0.1:5432), Redis (127.0.0.1:6379) and Debian's Chromium are here,
# starting or installing them with the system's own packages when they are not. Idempotent.
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }
apt_updated=""
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-services: apt-get not found; install $* by hand" >&2; return 1
  fi
  if [ -z "$apt_updated" ]; then as_root apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}
wait_for() { # wait_for SECONDS CMD...
  local n=$1; shift
  for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  return 1
}

# --- PostgreSQL ------------------------------------------------------------------------------
pg_up() { pg_isready -q -h 127.0.0.1 -p 5432; }
if ! command -v pg_isready >/dev/null 2>&1; then apt_install postgresql; fi
if ! pg_up; then
  if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then apt_install postgresql; fi
  version=$(ls /etc/postgresql | sort -V | tail -1)
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  wait_for 30 pg_up || { echo "ensure-services: PostgreSQL did not start" >&2; exit 1; }
fi
# Trust auth on loopback is what these machines have; make sure the postgres role can log in.
psql -h 127.0.0.1 -U postgres -d postgres -Atc 'select 1' >/dev/null \
  || { echo "ensure-services: cannot connect to PostgreSQL as postgres on 127.0.0.1" >&2; exit 1; }
echo "ensure-services: PostgreSQL ready on 127.0.0.1:5432"

# --- Redis -----------------------------------------------------------------------------------
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping | grep -q PONG; }
if ! command -v redis-server >/dev/null 2>&1; then apt_install redis-server; fi
if ! redis_up; then
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /tmp --logfile /tmp/tabletop-redis.log
  wait_for 15 redis_up || { echo "ensure-services: Redis did not start" >&2; exit 1; }
fi
echo "ensure-services: Redis ready on 127.0.0.1:6379"

# --- Chromium for the browser tests ------------------------------------------------------------
if [ ! -x /usr/bin/chromium ]; then apt_install chromium; fi
echo "ensure-services: $(/usr/bin/chromium --version 2>/dev/null || echo 'chromium missing')"
