"""Shared fixtures: offline HF settings, a tiny HF model and its GGUFs (built once per session)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

# Nothing may be fetched from a model hub in tests.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


REQUIRE_ALL = bool(os.environ.get("BENCHWRIGHT_REQUIRE_TOOLS"))
"""Set by the project's test command (scripts/test.sh): there every prerequisite is installed,
so a skipped test (missing Verilator, extra or suite) fails the run, never passes silently."""

SKIPPED: list[str] = []
"""Node ids skipped in this session (collection or run; xfails excluded)."""


def _note_skip(report: pytest.CollectReport | pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        SKIPPED.append(report.nodeid)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _note_skip(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _note_skip(report)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if REQUIRE_ALL and SKIPPED:
        terminalreporter.write_line(
            f"BENCHWRIGHT_REQUIRE_TOOLS=1: {len(SKIPPED)} test(s) skipped, which fails this run: "
            + ", ".join(SKIPPED[:20]), red=True)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if REQUIRE_ALL and SKIPPED and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED

COUNTER_SV = """\
module counter #(parameter int W = 8) (
  input  logic         clk,
  input  logic         rst_n,
  input  logic         en,
  output logic [W-1:0] q
);
  always_ff @(posedge clk or negedge rst_n)
    if (!rst_n) q <= '0;
    else if (en) q <= q + 1'b1;
endmodule
"""
"""A small RTL file for prompt and policy tests."""


@dataclass(frozen=True)
class TinyArtifacts:
    """The tiny model in every form tests need."""

    hf_dir: Path
    """Saved HF model + tokenizer (qwen3, hidden 64, 2 layers)."""
    f32: Path
    """Converted GGUF, f32 (for parity)."""
    q8_0: Path
    """Q8_0 quantization of it (what the policy tests load)."""


@pytest.fixture(scope="session")
def tiny_artifacts(tmp_path_factory: pytest.TempPathFactory) -> TinyArtifacts:
    """Build the tiny model, convert it to GGUF and quantize it, once per session."""
    pytest.importorskip("torch", reason="needs the train extra (torch)")
    pytest.importorskip("transformers", reason="needs the train extra (transformers)")
    pytest.importorskip("llama_cpp", reason="needs the llama extra (llama-cpp-python)")
    import torch

    from training.export.gguf import convert_to_gguf, converter_dir, quantize
    from training.sft.tiny import make_tiny_model

    try:
        converter_dir()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    torch.set_num_threads(1)  # 2 threads on a busy 2-core box is many times slower
    root = tmp_path_factory.mktemp("tiny_gguf")
    hf_dir = make_tiny_model(root / "hf", arch="qwen3", hidden=64, layers=2)
    f32 = convert_to_gguf(hf_dir, root / "tiny-f32.gguf", outtype="f32")
    q8 = quantize(f32, root / "tiny-Q8_0.gguf", "Q8_0", nthread=1)
    return TinyArtifacts(hf_dir=hf_dir, f32=f32, q8_0=q8)


@pytest.fixture(scope="session")
def tiny_gguf(tiny_artifacts: TinyArtifacts) -> Path:
    """Path of a tiny Q8_0 GGUF (random weights, ChatML template, eos `<|im_end|>`)."""
    return tiny_artifacts.q8_0


@pytest.fixture
def counter_design(tmp_path: Path):  # -> sim.suite.Design
    """A one-file design folder (8-bit counter) as a sim.suite.Design."""
    from sim.suite import Design, Reset

    rtl = tmp_path / "design" / "rtl" / "counter.sv"
    rtl.parent.mkdir(parents=True)
    rtl.write_text(COUNTER_SV, encoding="utf-8")
    return Design(name="counter", root=rtl.parent.parent, top="counter", rtl=(rtl,),
                  clocks=("clk",), resets=(Reset("rst_n", active_low=True),),
                  description="8-bit up counter with enable")
