# Two commands: `make run` serves the app, `make test` runs the whole suite.
# Both create and update .venv from pyproject.toml; no other manual step.
# `make dev` serves with DEBUG on instead (tracebacks, static files picked up as they change).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run dev test test-services lint format bench bench-ratio demo backup venv clean fake-discord

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (found %s)" % sys.version.split()[0])'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

# `make run`: DEBUG off (friendly error pages, hashed static files from `collectstatic`), still on
# the embedded defaults (SQLite, in-memory layer); LOCAL_HTTP=true keeps it on plain HTTP for this
# machine and uses a secret key generated once into .local/secret_key (git-ignored; see
# tabletop/settings.py).
# `make dev`: DEBUG on. One recipe for both, so daphne has one command line here.
# SITE_URL: where mail links lead (a digest's scene, its one-click unsubscribe): where this
# serves, unless the environment names the site's own address.
SITE_URL ?= http://$(HOST):$(PORT)
run: SERVE_ENV = DEBUG=false LOCAL_HTTP=true SITE_URL=$(SITE_URL)
run: SERVE_NOTE := DEBUG off; make dev for DEBUG on
dev: SERVE_ENV = DEBUG=true SITE_URL=$(SITE_URL)
dev: SERVE_NOTE := DEBUG on, for development only
run dev: $(STAMP)
	$(SERVE_ENV) $(BIN)/python manage.py upgrade
	$(if $(filter run,$@),$(SERVE_ENV) $(BIN)/python manage.py collectstatic --noinput -v 0)
	@echo ""
	@echo "  Tabletop is running at http://$(HOST):$(PORT)/ ($(SERVE_NOTE))   (Ctrl-C to stop)"
	@echo "  Demo tables and logins: make demo"
	@echo ""
	$(SERVE_ENV) $(BIN)/daphne -b $(HOST) -p $(PORT) --websocket-max-message-size 65536 tabletop.asgi:application

demo: $(STAMP)
	$(BIN)/python manage.py upgrade
	$(BIN)/python manage.py seed_demo --url http://$(HOST):$(PORT)/

# `make fake-discord`: a fake Discord on loopback that prints what it receives, to try the
# campaign's Discord mirror (README, "The table's log in Discord"); serve the app beside it with
# DISCORD_API_BASE=http://127.0.0.1:$(FAKE_DISCORD_PORT)/api make run
FAKE_DISCORD_PORT ?= 8472
fake-discord: $(STAMP)
	$(BIN)/python scripts/fake-discord.py --port $(FAKE_DISCORD_PORT)

# `make upgrade` is what run, dev and demo do first: migrate, after a backup when the database
# holds data and has migrations to apply (README, "Operating it").
# `make backup`: a dated backup into backups/ (BACKUP_DIR), keeping the newest BACKUP_KEEP (10).
BACKUP_KEEP ?= 10
backup: $(STAMP)
	$(BIN)/python manage.py backup --keep $(BACKUP_KEEP)

# The browser tests (Chromium against a daphne process, mostly waiting on pages and sockets) run
# after the rest, on BROWSER_WORKERS workers side by side, each with its own daphne and database;
# a file's tests stay on one worker (they share its module fixtures).
BROWSER_WORKERS ?= 2
test: $(STAMP)
	$(BIN)/python -m pytest --ignore=tests/browser
	$(BIN)/python -m pytest tests/browser -n $(BROWSER_WORKERS) --dist loadfile

# Integration tests against real PostgreSQL and Redis (started by .ci/run when missing).
test-services: $(STAMP)
	DATABASE_URL=$${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/tabletop} \
	REDIS_URL=$${TEST_REDIS_URL:-redis://127.0.0.1:6379/0} \
	$(BIN)/python -m pytest -m services

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# QUICK=1: a short smoke run of every benchmark (one layer pair, small cells).
BENCH_STAMP := $(VENV)/.bench-stamp
$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	@touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	BENCH_QUICK=$(QUICK) $(BIN)/python -m bench

# The app against the bare Channels stack in one run (bench/README.md), about 15 minutes.
bench-ratio: $(STAMP)
	bash scripts/ensure-services.sh
	$(BIN)/python -m bench.fanout.ratio

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis staticfiles
