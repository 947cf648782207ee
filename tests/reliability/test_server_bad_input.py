"""The real server over stdio with bad input: each case gives a clear error and the server stays up."""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import requires_verilator
from lsp_session import EXAMPLE, Session, start_session
from lsprotocol import types
from test_bad_model import Stub

pytestmark = [pytest.mark.e2e, pytest.mark.simulator_required, requires_verilator]


async def still_up(session: Session) -> None:
    """A follow-up request still works."""
    doctor = await session.command("benchwright.doctor", timeout=30)
    assert "benchwright server" in doctor["text"]


async def reconfigure(session: Session, settings: dict[str, Any]) -> None:
    session.client.set_configuration({"benchwright": settings})
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await asyncio.sleep(0.2)


async def wait_for(pred, timeout: float = 30.0) -> None:
    async def loop() -> None:
        while not pred():
            await asyncio.sleep(0.05)
    await asyncio.wait_for(loop(), timeout)


@pytest.fixture
def bad_workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws / "traffic_light")
    broken = ws / "broken"
    (broken / "rtl").mkdir(parents=True)
    (broken / "design.toml").write_bytes(b"top = [unclosed\n\xff")
    (broken / "rtl" / "b.sv").write_text("module b; endmodule\n")
    return ws


async def test_server_survives_bad_input(bad_workspace: Path, rel_cache: Path, tmp_path: Path, figures) -> None:
    base = {"lint": {"debounceMs": 0}, "policy": {"rounds": 0, "simCalls": 8}}
    session, stop = await start_session(bad_workspace, rel_cache, {"benchwright": base}, {"benchwright": base})
    rtl = bad_workspace / "traffic_light" / "rtl" / "traffic_light.sv"
    try:
        # 1. binary / NUL bytes / non-UTF-8 (as the client would decode it) in an open document
        figures.add("bad_input_tried")
        noise = "".join(chr(random.Random(2).randrange(0, 0x3000)) for _ in range(5000))
        uri = session.open(rtl, "module traffic_light(\x00\x01" + noise, version=1)
        diags = await session.diagnostics(uri, version=1, timeout=60)
        assert any(d.severity == types.DiagnosticSeverity.Error for d in diags)
        await still_up(session)
        figures.add("bad_input_handled")

        # 2. a 10 MB document
        figures.add("bad_input_tried")
        huge = bad_workspace / "traffic_light" / "rtl" / "huge.sv"
        text = ("// " + "y" * 96 + "\n") * 100_000 + "module huge; wire w = ; endmodule\n"
        huge.write_text(text)
        huge_uri = session.open(huge, text, version=1)
        diags = await session.diagnostics(huge_uri, version=1, timeout=90)
        assert any(d.severity == types.DiagnosticSeverity.Error for d in diags), diags
        await still_up(session)
        figures.add("bad_input_handled")

        # 3. an invalid design.toml: a logged warning naming the file, no crash
        figures.add("bad_input_tried")
        b_uri = session.open(bad_workspace / "broken" / "rtl" / "b.sv", version=1)
        await wait_for(lambda: any("invalid TOML" in m.message for m in session.client.log_messages))
        msg = next(m.message for m in session.client.log_messages if "invalid TOML" in m.message)
        assert str(bad_workspace / "broken" / "design.toml") in msg
        session.save(b_uri)
        await still_up(session)
        figures.add("bad_input_handled")

        # 4. Verilator missing (setting points nowhere): one error naming the setting
        figures.add("bad_input_tried")
        await reconfigure(session, {**base, "sim": {"verilatorPath": str(tmp_path / "no" / "verilator")}})
        session.change(uri, rtl.read_text(), version=2)
        session.save(uri)
        await wait_for(lambda: any("Verilator not found" in m.message for m in session.client.messages))
        shown = next(m for m in session.client.messages if "Verilator not found" in m.message)
        assert shown.type == types.MessageType.Error
        assert "benchwright.sim.verilatorPath" in shown.message
        doctor = await session.command("benchwright.doctor")
        assert "verilator    MISSING" in doctor["text"]
        figures.add("bad_input_handled")

        # 5. a corrupt GGUF as the model: a clear error for the command, server stays up
        figures.add("bad_input_tried")
        model = tmp_path / "corrupt.gguf"
        model.write_bytes(b"GGUF" + bytes(random.Random(4).randrange(256) for _ in range(4096)))
        await reconfigure(session, {**base, "policy": {**base["policy"], "backend": "llama", "modelPath": str(model)}})
        said = await command_error_text(session, rtl)
        assert "not a valid GGUF model" in said, said
        await still_up(session)
        figures.add("bad_input_handled")

        # 6. an OpenAI endpoint that answers 500
        figures.add("bad_input_tried")
        stub = Stub("500")
        try:
            await reconfigure(session, {**base, "policy": {**base["policy"], "backend": "openai",
                                                           "openaiBaseUrl": stub.url, "openaiModel": "m"}})
            said = await command_error_text(session, rtl)
            assert "HTTP 500" in said, said
            assert stub.requests >= 2  # retried before giving up
        finally:
            stub.close()
        await still_up(session)
        figures.add("bad_input_handled")

        # Back to good settings: the same server simulates normally.
        await reconfigure(session, base)
        session.change(uri, rtl.read_text(), version=3)
        session.save(uri)
        cov = await session.recorder.next_coverage(1, timeout=120)
        assert cov["status"] == "ok"
        assert cov["version"] == 3
    finally:
        await stop()


async def command_error_text(session: Session, rtl: Path) -> str:
    """What improveCoverage said: the result's message, or the JSON-RPC error text."""
    try:
        result = await session.command("benchwright.improveCoverage", rtl.as_uri(), timeout=120)
    except Exception as exc:  # noqa: BLE001 - a JSON-RPC error response
        return f"JSONRPC-ERROR {exc}"
    assert result["applied"] is False
    return str(result.get("message"))


# Regression: a lone surrogate in the buffer used to crash the lint shadow copy.
async def test_lone_surrogate_document_still_gets_diagnostics(bad_workspace: Path, rel_cache: Path) -> None:
    base = {"lint": {"debounceMs": 0}}
    session, stop = await start_session(bad_workspace, rel_cache, {"benchwright": base})
    try:
        rtl = bad_workspace / "traffic_light" / "rtl" / "traffic_light.sv"
        uri = session.open(rtl, rtl.read_text() + "// caf\udcff\n", version=1)
        await session.diagnostics(uri, version=1, timeout=20)
        await still_up(session)
    finally:
        await stop()
