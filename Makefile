# statusboard: `make run` to use it, `make test` to check it. Both install what they need first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test lint format bench system-deps clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

run: install
	$(BIN)/statusboard migrate
	$(BIN)/statusboard demo
	$(BIN)/statusboard serve --host $(HOST) --port $(PORT)

# Debian's Chromium (browser tests) and docker-compose (validates docker-compose.yml), where the machine lets us.
system-deps:
	@if [ ! -x /usr/bin/chromium ] || ! command -v docker-compose >/dev/null 2>&1; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    echo "installing chromium and docker-compose from Debian"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium docker-compose >/dev/null) \
	      || echo "warning: apt-get could not install chromium/docker-compose; those tests will be skipped"; \
	  else \
	    echo "warning: no root apt-get; install chromium and docker-compose yourself or those tests are skipped"; \
	  fi; \
	fi

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

test: install system-deps lint
	$(BIN)/pytest $(PYTEST_ARGS)

bench: install
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
