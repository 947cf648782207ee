# Benchwright: the two commands of the README, plus helpers.
#   make demo   set up (idempotent) and run the built-in engine on the bundled example
#   make test   set up (idempotent) and run the whole test suite
VENV ?= .venv
BW   := $(VENV)/bin/benchwright
PY   := $(VENV)/bin/python
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: setup demo test lint bench-human

setup:
	bash scripts/setup.sh

demo: setup
	$(BW) run examples/traffic_light --out benchwright-out/traffic_light

test: setup
	bash scripts/test.sh

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench-human: setup
	$(PY) benchmarks/human_tests.py
