#!/usr/bin/env bash
# The project's test command (what `make test` and .ci/run run after set-up):
# lint, type-check, then the whole pytest suite with real Verilator/cocotb/llama.cpp.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OMP_NUM_THREADS=1 PYTHONDONTWRITEBYTECODE=1
"$VENV/bin/ruff" check .
"$VENV/bin/mypy"
"$VENV/bin/python" -m pytest -q "$@"
