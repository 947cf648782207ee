"""Regression on save: the real server re-runs a kept testbench with checks after an RTL edit.

A failed check is a warning at the output's declaration with the code action "Accept new
behaviour", which re-records the checks as one edit of the testbench; saved, the run passes.
Real server process over stdio, real Verilator, tests/data/program/ahb_regs (Apache-2.0).
"""

from __future__ import annotations

import ast
import shutil
import time
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
        assert actions is not None
        accept = next(a for a in actions if a.title.startswith("Accept new behaviour"))
        # The test client reads the `CodeAction | Command` union as a Command, whose `command` string
        # then holds the CodeAction's command object as text: read it back from whichever shape arrived.
        inner: Any = accept.command
        if isinstance(inner, str) and inner.startswith("{"):
            inner = ast.literal_eval(inner)
        name, arguments = (inner["command"], inner["arguments"]) if isinstance(inner, dict) else \
            (inner.command, inner.arguments) if isinstance(inner, types.Command) else (inner, accept.arguments)
        assert name == "benchwright.acceptNewBehaviour"
        assert arguments == [uri]

        answer = await session.command(name, *arguments)
        assert answer["applied"] is True, answer
        (edit,) = session.recorder.edits
        assert edit.edit.document_changes is not None
        change = edit.edit.document_changes[-1]
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == tb.as_uri()
        new_text = change.edits[0].new_text
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
