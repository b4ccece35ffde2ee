# Every target creates .venv from the project's own files first; nothing is installed by hand.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
REPO ?= .
STAMP := $(VENV)/.installed

.PHONY: up test lint protos check-protos bench bench-quick bench-index clean

$(STAMP): pyproject.toml requirements.lock
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c requirements.lock -e '.[dev]'
	@touch $(STAMP)

## Start the whole suite on embedded stores and index REPO (default: this repository).
up: $(STAMP)
	$(BIN)/reporecall up --index $(REPO)

## Run the test suite (what CI runs).
test: $(STAMP)
	@tools/install_prometheus.sh || echo "make test: prometheus/promtool not installed; their tests will skip"
	@tools/install_claude_code.sh || echo "make test: Claude Code (npm) not installed; the real-client test will skip"
	$(BIN)/python tools/gen_protos.py --check
	$(BIN)/python -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy kit services gateway cli

protos: $(STAMP)
	$(BIN)/python tools/gen_protos.py

clean:
	rm -rf $(VENV)

include bench/Makefile.inc
