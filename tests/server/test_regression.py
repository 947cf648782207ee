"""Regression on save: the real server re-runs a kept testbench with checks after an RTL edit.

A failed check is a warning at the output's declaration with the code action "Accept new
behaviour", which re-records the checks as one edit of the testbench; saved, the run passes.
Real server process over stdio, real Verilator, tests/data/program/ahb_regs (Apache-2.0) and
tests/data/regression/apb_adder (a repository without design.toml whose kept testbench is in tb/,
as the editor's end-to-end flow 7 uses it).
"""

from __future__ import annotations

import ast
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from lsp_session import first_where, requires_verilator, start_session
from lsprotocol import types

from agent.heuristic.engine import run_engine
from agent.policy import Budget
from sim.suite import load_design

pytestmark = [pytest.mark.e2e, pytest.mark.simulator_required, requires_verilator]

DESIGN = Path(__file__).resolve().parents[1] / "data" / "program" / "ahb_regs"
ADDER = Path(__file__).resolve().parents[1] / "data" / "regression" / "apb_adder"


def accept_action(actions: Sequence[types.CodeAction | types.Command] | None) -> tuple[str, list[Any]]:
    """The command name and arguments of the "Accept new behaviour" code action among `actions`."""
    assert actions is not None
    accept: Any = next(a for a in actions if a.title.startswith("Accept new behaviour"))
    # The test client reads the `CodeAction | Command` union as a Command, whose `command` string
    # then holds the CodeAction's command object as text: read it back from whichever shape arrived.
    inner: Any = accept.command
    if isinstance(inner, str) and inner.startswith("{"):
        inner = ast.literal_eval(inner)
    if isinstance(inner, dict):
        return inner["command"], inner["arguments"]
    if isinstance(inner, types.Command):
        return inner.command, list(inner.arguments or [])
    return inner, list(accept.arguments or [])


async def test_a_behaviour_change_fails_the_kept_checks_until_it_is_accepted(tmp_path: Path, cache_dir: Path) -> None:
    root = tmp_path / "ws" / "ahb_regs"
    shutil.copytree(DESIGN, root)
    kept, _rep = run_engine(load_design(root), strategy="heuristic", budget=Budget(20, time.monotonic() + 300), seed=0)
    assert "BW_EXPECT" in kept
    (root / "tb").mkdir()
    tb = root / "tb" / "tb_ahb_regs.sv"
    tb.write_text(kept)
    options = {"benchwright": {"lint": {"debounceMs": 0}, "policy": {"rounds": 0, "simCalls": 12}}}
    session, stop = await start_session(tmp_path / "ws", cache_dir, options)
    try:
        rtl = root / "rtl" / "ahb_regs.sv"
        uri = session.open(rtl)
        session.save(uri)
        first = await session.recorder.next_coverage(1)
        assert first["status"] == "ok"

        # The key compare moves by one: the kept stimulus no longer unlocks the register.
        edited = rtl.read_text().replace("hwdata_i == 32'h600DCAFE", "hwdata_i == 32'h600DCAFF")
        rtl.write_text(edited)
        session.change(uri, edited, version=2)
        session.save(uri)
        failed = await session.recorder.next_coverage(2)
        assert failed["status"] == "ok"  # the run finished: its coverage is shown beside the failed check

        def mismatch_published() -> list[types.Diagnostic]:
            return [d for d in session.client.diagnostics.get(uri, []) if d.code == "check-mismatch"]

        await first_where([{}], lambda _: bool(mismatch_published()), timeout=30)
        (warning,) = mismatch_published()
        assert warning.severity == types.DiagnosticSeverity.Warning
        assert "output unlocked differs from the recorded run" in warning.message
        assert "output" in edited.splitlines()[warning.range.start.line]
        assert "unlocked" in edited.splitlines()[warning.range.start.line]
        actions = await session.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=warning.range,
            context=types.CodeActionContext(diagnostics=[warning])))
        name, arguments = accept_action(actions)
        assert name == "benchwright.acceptNewBehaviour"
        assert arguments == [uri]

        answer = await session.command(name, *arguments)
        assert answer["applied"] is True, answer
        (edit,) = session.recorder.edits
        assert edit.edit.document_changes is not None
        change = edit.edit.document_changes[-1]
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == tb.as_uri()
        (whole,) = change.edits
        assert isinstance(whole, types.TextEdit)
        new_text = whole.new_text
        assert new_text != kept
        assert new_text.split("// --- program ---")[1] == kept.split("// --- program ---")[1]  # same stimulus

        # The client applies and saves the edit: the run passes and the warning goes.
        tb.write_text(new_text)
        tb_uri = session.open(tb, new_text)
        session.save(tb_uri)
        passed = await session.recorder.next_coverage(3)
        assert passed["status"] == "ok"
        await first_where([{}], lambda _: not mismatch_published(), timeout=30)
    finally:
        await stop()


async def test_the_kept_testbench_of_a_repository_without_design_toml_is_accepted_and_rerun(
        tmp_path: Path, cache_dir: Path) -> None:
    """Found by the editor's flow 7: there the kept testbench in tb/ is the repository's own (no
    design.toml), which Accept new behaviour refused ("no single-file SystemVerilog testbench"), and
    saving it linted and simulated it as a design of its own, so the warnings never went."""
    root = tmp_path / "ws" / "apb_adder"
    shutil.copytree(ADDER, root)
    tb = root / "tb" / "tb_apb_adder.sv"
    kept = tb.read_text()
    options = {"benchwright": {"lint": {"debounceMs": 0}, "policy": {"rounds": 0}}}
    session, stop = await start_session(tmp_path / "ws", cache_dir, options)
    try:
        rtl = root / "rtl" / "apb_adder.sv"
        uri = session.open(rtl)
        edited = rtl.read_text().replace("assign sum = a + b;", "assign sum = a - b;")
        rtl.write_text(edited)
        session.change(uri, edited, version=2)
        session.save(uri)
        failed = await session.recorder.next_coverage(1)
        assert failed["status"] == "ok"
        assert "repository's own testbench" in failed["testbenchSource"]

        def mismatches() -> dict[int, types.Diagnostic]:
            return {d.range.start.line: d for d in session.client.diagnostics.get(uri, []) if d.code == "check-mismatch"}

        await first_where([{}], lambda _: len(mismatches()) == 2, timeout=30)
        lines, tb_lines = edited.splitlines(), kept.splitlines()
        port = next(k for k, text in enumerate(lines) if "output" in text and "prdata" in text)
        read = mismatches()[port]
        assert "read 3: bus_read(8) returned 0fffffea, the recorded run 10000016" in read.message
        # The first failing operation in the testbench: the sweep that carries the recorded value.
        (where,) = read.related_information or []
        assert where.location.uri == tb.as_uri()
        assert "bus_sweep_is(0, " in tb_lines[where.location.range.start.line]
        assert where.message == "read 3: the recorded run returned 32'h10000016"
        carry = mismatches()[next(k for k, text in enumerate(lines) if "output" in text and "carry" in text)]
        (phase,) = carry.related_information or []
        assert phase.message.startswith("phase 1 starts here: program 1 (")

        actions = await session.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=read.range,
            context=types.CodeActionContext(diagnostics=[read])))
        name, arguments = accept_action(actions)
        answer = await session.command(name, *arguments)
        assert answer["applied"] is True, answer
        (edit,) = session.recorder.edits
        change = (edit.edit.document_changes or [])[-1]
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == tb.as_uri()
        (whole,) = change.edits
        assert isinstance(whole, types.TextEdit)
        new_text = whole.new_text
        assert "bus_sweep_is(0, '{32'h10000000, 32'h00000016, 32'h0fffffea, 32'h00000000});" in new_text
        assert new_text.split("// --- program ---")[1].replace("0fffffea", "10000016") == \
            kept.split("// --- program ---")[1]  # same stimulus, the read's new value
        assert tb.read_text() == kept  # an edit for the client to apply, nothing written

        # The client applies and saves it: the testbench is linted with the design's RTL (not as a
        # design of its own), and saving it re-runs the design: the warnings go.
        tb.write_text(new_text)
        tb_uri = session.open(tb, new_text)
        session.save(tb_uri)
        passed = await session.recorder.next_coverage(2)
        assert (passed["status"], passed["design"]) == ("ok", "apb_adder")
        await first_where([{}], lambda _: not mismatches(), timeout=30)
        await first_where([{}], lambda _: tb_uri in session.client.diagnostics, timeout=60)
        errors = [d.message for d in session.client.diagnostics[tb_uri] if d.severity == types.DiagnosticSeverity.Error]
        assert errors == []  # before: "Cannot find file containing module: 'apb_adder'"
    finally:
        await stop()
