# Every target creates .venv from the project's own files first; nothing is installed by hand.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
REPO ?= .
# First of the ports `make up` uses (gateway HTTP on PORT, gRPC on PORT+1…PORT+5, metrics from PORT+10).
PORT ?= 7870
STAMP := $(VENV)/.installed

.PHONY: up test test-fast lint protos check-protos bench bench-quick bench-index bench-graph-stores clean

# Every dependency is installed by hash (requirements.lock, sha256 of each file; a re-published file is
# refused), then the project itself (editable, no dependencies, built with the locked setuptools).
$(STAMP): pyproject.toml requirements.lock
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	@touch $(STAMP)

## Start the whole suite on embedded stores and index REPO (default: this repository); PORT=… moves it.
up: $(STAMP)
	$(BIN)/reporecall up --base-port $(PORT) --index $(REPO)

## Run the test suite (what CI runs), with a real Neo4j 5.26 on a loopback port for the Neo4j cases
## (tools/neo4j/with_neo4j.py; REPORECALL_TEST_NEO4J=off skips them on a machine without Java/Maven, not in CI).
test: $(STAMP)
	@tools/install_prometheus.sh || echo "make test: prometheus/promtool not installed; their tests will skip"
	@test "$$REPORECALL_TEST_NEO4J" = off || tools/neo4j/install_jdk_maven.sh
	@tools/install_claude_code.sh || echo "make test: Claude Code (npm) not installed; the real-client test will skip"
	$(BIN)/python tools/gen_protos.py --check
	$(BIN)/python tools/neo4j/with_neo4j.py -- $(BIN)/python -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)

## Neo4j vs SQLite graph store: ReplaceFileGraph throughput and CallTree p50/p99 on one corpus (starts Neo4j).
bench-graph-stores: $(STAMP)
	$(BIN)/python tools/neo4j/with_neo4j.py -- $(BIN)/python -m bench.bench_graph_stores $(BENCH_ARGS)

## Unit, contract and servicer tests only: no real processes (e2e, reliability, deploy, CLI suite).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider -m 'not e2e' --ignore=tests/e2e --ignore=tests/reliability --ignore=tests/deploy --ignore=tests/cli $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy kit services gateway cli

protos: $(STAMP)
	$(BIN)/python tools/gen_protos.py

clean:
	rm -rf $(VENV)

include bench/Makefile.inc
