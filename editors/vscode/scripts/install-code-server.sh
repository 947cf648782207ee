#!/usr/bin/env bash
# Idempotent install of code-server 4.100.3 (VS Code 1.100.3, Node 20) from npm into a cache dir.
# The stock postinstall cannot run offline/as root (kerberos headers, @vscode/ripgrep downloads
# from GitHub, unsafe-perm), so this mirrors its postinstall.sh by hand
# (recipe in ../shared/ENVIRONMENT.md, extension appendix, layer 4).
# Usage: install-code-server.sh [DIR]   (default ~/.cache/benchwright/code-server)
# Prints the path of the code-server entry point on the last line of stdout.
set -euo pipefail
VERSION=4.100.3
DIR=${1:-${BENCHWRIGHT_CODE_SERVER_DIR:-$HOME/.cache/benchwright/code-server}}
STAMP="$DIR/.installed-$VERSION"
ENTRY="$DIR/node_modules/code-server/out/node/entry.js"
if [[ -f "$STAMP" && -f "$ENTRY" ]]; then
  echo "$ENTRY"
  exit 0
fi
for tool in rg node npm; do
  command -v "$tool" >/dev/null || { echo "MISSING: $tool" >&2; exit 3; }
done
[[ -f /usr/include/gssapi/gssapi.h ]] || { echo "MISSING: libkrb5-dev (gssapi/gssapi.h)" >&2; exit 3; }
[[ -d /usr/include/node ]] || { echo "MISSING: Node headers in /usr/include/node" >&2; exit 3; }
mkdir -p "$DIR"
cd "$DIR"
[[ -f package.json ]] || echo '{"name":"bw-code-server","private":true}' > package.json
echo "[code-server] npm install --ignore-scripts code-server@$VERSION" >&2
npm install --no-audit --no-fund --ignore-scripts "code-server@$VERSION" >&2
CS="$DIR/node_modules/code-server"
cd "$CS/lib/vscode"
echo "[code-server] installing lib/vscode dependencies" >&2
npm_config_nodedir=/usr npm_config_yes=true npm install --no-audit --no-fund --omit=dev --ignore-scripts >&2
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
echo "[code-server] npm rebuild (native modules)" >&2
npm_config_nodedir=/usr npm_config_yes=true npm rebuild --foreground-scripts >&2
ln -sfn node_modules node_modules.asar
ln -sf code-linux.sh bin/remote-cli/code-server
ln -sf browser-linux.sh bin/helpers/browser.sh
(cd extensions && npm install --no-audit --no-fund --omit=dev >&2)
cd "$CS"
echo "[code-server] npm rebuild argon2" >&2
(cd "$DIR" && npm_config_nodedir=/usr npm rebuild argon2 >&2)
node "$ENTRY" --version >&2
touch "$STAMP"
echo "$ENTRY"
