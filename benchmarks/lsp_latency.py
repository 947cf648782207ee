"""Latency of the language server against bare sim/ doing the same work (not a timed test).

For each design (a copy of a public-suite folder in a scratch workspace):

* lint: didChange (debounce 0) -> publishDiagnostics for that version, against the same
  `verilator --lint-only` command run directly;
* save -> benchwright/coverage after a TB-only change and after an RTL change, against
  `sim.run.human.evaluate_human` on the same change. Every change is unique (a dead
  `$display` with a fresh string), so neither side gets a build-cache or ccache hit the
  other did not.

Targets (issue 4): lint p50 <= 0.3 s; save->coverage <= 1.2x the bare sim/ time.

    .venv/bin/python benchmarks/lsp_latency.py [--designs a,b,c] [--lint-runs 20] [--sim-runs 5]

`--lint-only` skips the save part. Since lint runs in the OS sandbox (issue 19), the "bare"
lint column is still the unsandboxed command, so lsp/bare shows what the server and the
sandbox add. To compare code versions (lint p50 before/after), run the script once with
PYTHONPATH pointing at a checkout of the older commit (the server is started with this
interpreter, and PYTHONPATH comes first on its sys.path) and once without, and compare the
JSON files (`--out`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

REPO = Path(__file__).resolve().parents[1]
PUBLIC = Path(os.environ.get("BENCHWRIGHT_PUBLIC", REPO.parent / "shared" / "benchmarks" / "public"))
DEFAULT_DESIGNS = ("cvdp__alu_core", "nandland__spi_master_cs", "cvdp__ddm_cache")


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def mutate(path: Path, tag: str) -> None:
    """Insert a dead `$display` with a unique string before the file's last `endmodule`."""
    text = path.read_text()
    cut = text.rindex("endmodule")
    path.write_text(f'{text[:cut]}  initial if (0) $display("bw-bench {tag}");\n{text[cut:]}')


class Client:
    """A pytest-lsp client on a started server that records coverage notifications."""

    def __init__(self) -> None:
        self.coverage: asyncio.Queue[Any] = asyncio.Queue()
        self.diagnostics: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()
        self.lsp: LanguageClient | None = None

    def factory(self) -> LanguageClient:
        client = LanguageClient(converter_factory=default_converter)
        register_lsp_features(client, {k: v for k, v in DEFAULT_CLIENT_FEATURES.items()
                                       if k != types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS})
        client.feature("benchwright/coverage")(lambda params: self.coverage.put_nowait(params))
        client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(lambda params: self.diagnostics.put_nowait(params))
        client.feature("benchwright/status")(lambda params: None)
        client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
        client.feature(types.WORKSPACE_CODE_LENS_REFRESH)(lambda params: None)
        return client


async def lsp_session(workspace: Path, cache: Path) -> tuple[Client, LanguageClient]:
    rec = Client()
    env = {**os.environ, "BENCHWRIGHT_CACHE": str(cache), "BENCHWRIGHT_LOG_LEVEL": "WARNING"}
    config = ClientServerConfig(server_command=[sys.executable, "-m", "server"], server_env=env,
                                client_factory=rec.factory)
    client = await config.start()
    assert isinstance(client, LanguageClient)
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
        initialization_options={"benchwright": {"lint": {"debounceMs": 0}}}))
    return rec, client


def open_doc(client: LanguageClient, path: Path) -> str:
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id="systemverilog", version=1, text=path.read_text())))
    return path.as_uri()


async def wait_diagnostics(rec: Client, uri: str, version: int) -> None:
    while True:
        params = await rec.diagnostics.get()
        if params.uri == uri and params.version == version:
            return


async def bench_design(name: str, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    from server.lint import lint_command
    from sim.run.evaluate import SimOptions
    from sim.run.human import evaluate_human
    from sim.suite import load_design
    from sim.tools import find_verilator, tool_env

    workspace = scratch / name
    shutil.copytree(PUBLIC / name, workspace / name)
    design_dir = workspace / name
    design = load_design(design_dir)
    assert design.human_test is not None
    rtl, tb = design.rtl[-1], design.human_test.files[0]
    cache = scratch / f"cache-{name}"
    os.environ["BENCHWRIGHT_CACHE"] = str(cache)  # the bare runs use the same cache root
    rec, client = await lsp_session(workspace, cache)
    out: dict[str, Any] = {"design": name}
    try:
        # -- lint ----------------------------------------------------------------
        rtl_uri = open_doc(client, rtl)
        await asyncio.wait_for(wait_diagnostics(rec, rtl_uri, 1), 60)
        text = rtl.read_text()
        lsp_lint = []
        for i in range(args.lint_runs):
            version = i + 2
            start = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=rtl_uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=f"{text}// edit {i}\n")]))
            await asyncio.wait_for(wait_diagnostics(rec, rtl_uri, version), 60)
            lsp_lint.append(time.perf_counter() - start)
        tool = find_verilator()
        dirs = tuple(dict.fromkeys(p.parent for p in design.rtl))
        argv = lint_command(tool, design, design.rtl, dirs, design.top, ())
        # The same command bare and inside the lint's OS sandbox, interleaved (same load for both).
        boxed_argv = sandboxed_lint(tool, design, dirs, argv, scratch / f"lint-{name}")
        bare_lint, boxed_lint = [], []
        for _ in range(args.lint_runs):
            for cmd, times in ((argv, bare_lint), (boxed_argv, boxed_lint)):
                start = time.perf_counter()
                subprocess.run(cmd, cwd=design_dir, env=tool_env(tool), capture_output=True, check=False)
                times.append(time.perf_counter() - start)
        out["lint"] = {"lsp_p50": pct(lsp_lint, 0.5), "lsp_p95": pct(lsp_lint, 0.95),
                       "bare_p50": pct(bare_lint, 0.5), "bare_p95": pct(bare_lint, 0.95),
                       "sandboxed_p50": pct(boxed_lint, 0.5), "sandboxed_p95": pct(boxed_lint, 0.95),
                       "sandbox_ratio_p50": pct(boxed_lint, 0.5) / pct(bare_lint, 0.5)}
        if args.lint_only:
            return out
        # -- save -> coverage ----------------------------------------------------
        tb_uri = open_doc(client, tb)
        version_of = {rtl_uri: args.lint_runs + 2, tb_uri: 2}
        for kind, path, uri in (("tb_change", tb, tb_uri), ("rtl_change", rtl, rtl_uri)):
            lsp_s, bare_s, statuses = [], [], set()
            for i in range(args.sim_runs):
                mutate(path, f"bare-{kind}-{i}-{time.time_ns()}")
                start = time.perf_counter()
                result = evaluate_human(load_design(design_dir), SimOptions())
                bare_s.append(time.perf_counter() - start)
                mutate(path, f"lsp-{kind}-{i}-{time.time_ns()}")
                version_of[uri] += 1
                client.text_document_did_change(types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version_of[uri]),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(text=path.read_text())]))
                start = time.perf_counter()
                client.text_document_did_save(types.DidSaveTextDocumentParams(
                    text_document=types.TextDocumentIdentifier(uri=uri)))
                cov = await asyncio.wait_for(rec.coverage.get(), 300)
                lsp_s.append(time.perf_counter() - start)
                statuses.add((result.status.value, cov["status"] if isinstance(cov, dict) else cov.status))
            out[kind] = {"lsp_p50": pct(lsp_s, 0.5), "lsp_p95": pct(lsp_s, 0.95), "bare_p50": pct(bare_s, 0.5),
                         "bare_p95": pct(bare_s, 0.95), "ratio_p50": statistics.median(lsp_s) / statistics.median(bare_s),
                         "status": sorted(statuses)}
    finally:
        await asyncio.wait_for(client.shutdown_session(), 20)
        await client.stop()
    return out


def sandboxed_lint(tool: Any, design: Any, dirs: tuple[Path, ...], argv: list[str], work: Path) -> list[str]:
    """`argv` wrapped in the lint's sandbox (as server.lint runs it); unchanged on an older checkout."""
    try:
        from server.lint import lint_sandbox
    except ImportError:  # a checkout from before lint was sandboxed
        return argv
    work.mkdir(parents=True, exist_ok=True)
    return lint_sandbox(tool, design, tuple(design.rtl), dirs, work, None).wrap(argv, work, None)


def table(rows: list[dict[str, Any]]) -> str:
    if all("tb_change" not in r for r in rows):
        lines = ["| design | lint p50 / p95 | bare lint p50 | sandboxed lint p50 (ratio) |", "|---|---|---|---|"]
        lines += [f"| {r['design']} | {r['lint']['lsp_p50']:.3f} / {r['lint']['lsp_p95']:.3f} s "
                  f"| {r['lint']['bare_p50']:.3f} s | {r['lint']['sandboxed_p50']:.3f} s "
                  f"({r['lint']['sandbox_ratio_p50']:.2f}x) |" for r in rows]
        return "\n".join(lines)
    lines = ["| design | lint p50 / p95 (bare p50) | TB change p50 / p95 (bare p50, ratio) | RTL change p50 / p95 (bare p50, ratio) |",
             "|---|---|---|---|"]
    for r in rows:
        lint, tb, rtl = r["lint"], r["tb_change"], r["rtl_change"]
        lines.append(
            f"| {r['design']} | {lint['lsp_p50']:.3f} / {lint['lsp_p95']:.3f} s ({lint['bare_p50']:.3f} s) "
            f"| {tb['lsp_p50']:.2f} / {tb['lsp_p95']:.2f} s ({tb['bare_p50']:.2f} s, {tb['ratio_p50']:.2f}x) "
            f"| {rtl['lsp_p50']:.2f} / {rtl['lsp_p95']:.2f} s ({rtl['bare_p50']:.2f} s, {rtl['ratio_p50']:.2f}x) |")
    return "\n".join(lines)


async def amain(args: argparse.Namespace) -> int:
    scratch = Path(tempfile.mkdtemp(prefix="bw-lsp-latency-"))
    rows = []
    try:
        for name in args.designs.split(","):
            sys.stderr.write(f"{name} ...\n")
            rows.append(await bench_design(name, args, scratch))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(table(rows))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--designs", default=",".join(DEFAULT_DESIGNS), help="comma-separated public-suite designs")
    p.add_argument("--lint-runs", type=int, default=20)
    p.add_argument("--sim-runs", type=int, default=5)
    p.add_argument("--lint-only", action="store_true", help="measure lint only (no save -> coverage)")
    p.add_argument("--out", type=Path, default=REPO / "benchwright-out" / "lsp_latency.json")
    return asyncio.run(amain(p.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
