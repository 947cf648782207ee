#!/usr/bin/env bash
# The project's test command (what `make test` and .ci/run run after set-up):
# lint and type-check the Python packages, build the documentation site, the VS Code
# extension's layers (unit, contract, packaging, code-server end to end), then the whole pytest
# suite with real Verilator, cocotb and llama.cpp (last, so its summary is the closing line).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
# BENCHWRIGHT_REQUIRE_TOOLS: tests that need Verilator fail, not skip, when it is missing.
export VENV BENCHWRIGHT_REQUIRE_TOOLS=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OMP_NUM_THREADS=1 PYTHONDONTWRITEBYTECODE=1
"$VENV/bin/ruff" check .
"$VENV/bin/mypy"
# The documentation site (mkdocs.yml, strict): a broken link, a missing page or anchor fails.
docs_start=$SECONDS site_dir=$(mktemp -d)
NO_MKDOCS_2_WARNING=1 "$VENV/bin/mkdocs" build --strict --quiet --site-dir "$site_dir"
rm -rf "$site_dir"
echo "mkdocs build --strict: ok in $((SECONDS - docs_start)) s" >&2
bash scripts/test_extension.sh
"$VENV/bin/python" -m pytest -q "$@"
