"""Regenerate the committed --json-only fixtures: `.venv/bin/python tests/data/sim/design/regen.py`.

Runs Verilator from this folder with relative file names (so the JSON holds no absolute
paths), drops empty lists and UNLINKED references to keep the files small, and stores the
meta file's design-file table under the tree's `meta` key (as sim.design.read_tree does).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))

from sim.tools import find_verilator, tool_env  # noqa: E402

FIXTURES = {"fsm_top": ["fsm_top.sv"], "tail_reset": ["tail_reset.v"]}


def strip(node: object) -> object:
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if v != [] and v != "UNLINKED"}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def main() -> None:
    tool = find_verilator()
    for top, files in FIXTURES.items():
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            subprocess.run(
                [str(tool.verilator), "--json-only", "-Wno-fatal", "-Wno-lint", "-Wno-style",
                 "--top-module", top, "--json-only-output", str(out / "t.json"),
                 "--json-only-meta-output", str(out / "m.json"), "-Mdir", str(out / "obj"), *files],
                cwd=HERE, env=tool_env(tool), check=True, capture_output=True,
            )
            tree = json.loads((out / "t.json").read_text())
            meta = json.loads((out / "m.json").read_text())
        files_meta = {k: {"filename": v["filename"]} for k, v in meta["files"].items()
                      if not v["filename"].startswith("<")}
        tree = strip(tree)
        tree["meta"] = {"files": files_meta}
        (HERE / f"{top}.json").write_text(json.dumps(tree, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
