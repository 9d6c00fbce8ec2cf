# Two commands: `make run` serves the app, `make test` runs the whole suite.
# Both create and update .venv from pyproject.toml; no other manual step.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test test-services lint format bench demo venv clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (found %s)" % sys.version.split()[0])'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	@echo ""
	@echo "  Tabletop is running at http://$(HOST):$(PORT)/   (Ctrl-C to stop)"
	@echo "  Demo tables and logins: make demo"
	@echo ""
	$(BIN)/daphne -b $(HOST) -p $(PORT) --websocket-max-message-size 65536 tabletop.asgi:application

demo: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_demo --url http://$(HOST):$(PORT)/

test: $(STAMP)
	$(BIN)/python -m pytest

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

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis staticfiles
