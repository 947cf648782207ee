#!/usr/bin/env bash
# Clone the public repositories of external.toml at the commits the references were written for
# (needs network access to GitHub; the repositories are not kept in this project's git).
#   bash benchmarks/external/fetch_repos.sh
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p repos
while read -r dir url commit; do
  [[ -z "$dir" || "$dir" == \#* ]] && continue
  if [[ ! -e "repos/$dir" ]]; then
    git clone --quiet --recurse-submodules "$url" "repos/$dir"
  fi
  if [[ -d "repos/$dir/.git" ]]; then
    git -C "repos/$dir" checkout --quiet "$commit"
    git -C "repos/$dir" submodule --quiet update --init --recursive
  fi
  echo "repos/$dir at $commit"
done <<'LIST'
# folder           upstream                                          commit
verilog-axi       https://github.com/alexforencich/verilog-axi      516bd5dadc3365b7f9e225d2af8fe0b8d804fe53
sockit_owm        https://github.com/jeras/sockit_owm               00d0ea87349d3d610b994189a4dec43d6629b976
Hazard3           https://github.com/Wren6991/Hazard3               82729101218bd0dbdb481fe06a38cae87674034e
i2c               https://github.com/freecores/i2c                  3b067f00ccced753b0502024766a51f58f3e04bc
spi               https://github.com/freecores/spi                  1b8aa4c54bd72cc9668f52aafd35698da3378098
sdspi             https://github.com/ZipCPU/sdspi                   846eee45c6f7f12deb0b265051ed858009868095
core_dbg_bridge   https://github.com/ultraembedded/core_dbg_bridge  3ea8f99cb458acf3f6cfe27862afe77d560caf08
apb_gpio          https://github.com/pulp-platform/apb_gpio         f82caeb7f7d89427f05e9af5ed31e0675efe0d83
axi_dma           https://github.com/aignacio/axi_dma               e880401a5c35322525288985f9664b1eff9ec685
LIST
