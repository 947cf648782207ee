"""The real server process over stdio (pytest-lsp) with real Verilator on the traffic_light example."""

from __future__ import annotations

import asyncio
import shutil
import time
import uuid
from pathlib import Path

import pytest
from lsp_session import (
    REPO,
    Session,
    cli_sim_json,
    first_where,
    requires_verilator,
    start_session,
)
from lsprotocol import types

pytestmark = [pytest.mark.e2e, pytest.mark.simulator_required, requires_verilator]

SYNTAX_ERROR_LINE = 43
"""1-based line of traffic_light.sv that the syntax-error test breaks."""


def rtl(session: Session) -> Path:
    return session.design / "rtl" / "traffic_light.sv"


def tb(session: Session) -> Path:
    return session.design / "tb" / "tb_traffic_light.sv"


def broken(text: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[SYNTAX_ERROR_LINE - 1] = lines[SYNTAX_ERROR_LINE - 1].replace("next = RED;", "next = = RED;")
    return "".join(lines)


async def test_lint_syntax_error_at_the_right_line_then_cleared(session: Session) -> None:
    text = rtl(session).read_text()
    uri = session.open(rtl(session), broken(text), version=1)
    diags = await session.diagnostics(uri, version=1)
    errors = [d for d in diags if d.severity == types.DiagnosticSeverity.Error]
    assert errors, diags
    assert {d.source for d in diags} == {"verilator"}
    assert errors[0].range.start.line == SYNTAX_ERROR_LINE - 1
    assert "syntax error" in errors[0].message
    column = broken(text).splitlines()[SYNTAX_ERROR_LINE - 1].index("= =") + 2
    assert errors[0].range.start.character == column

    session.change(uri, text, version=2)
    diags = await session.diagnostics(uri, version=2)
    assert not [d for d in diags if d.severity == types.DiagnosticSeverity.Error]
    width = [d for d in diags if d.code == "WIDTHEXPAND"]
    assert width, diags
    assert (width[0].range.start.line, width[0].range.start.character, width[0].range.end.character) == (41, 29, 31)
    assert width[0].code_description is not None
    assert "WIDTHEXPAND" in width[0].code_description.href

    session.client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert await session.diagnostics(uri) == []


async def test_save_publishes_coverage_equal_to_cli(session: Session, cache_dir: Path) -> None:
    uri = session.open(rtl(session))
    await session.diagnostics(uri, version=1)
    session.save(uri)
    cov = await session.recorder.next_coverage(1)
    expected = cli_sim_json(session.design, cache_dir)

    assert cov["status"] == expected["status"] == "ok"
    assert cov["version"] == 1
    assert cov["design"] == cov["top"] == "traffic_light"
    assert cov["testbenchUri"] == tb(session).as_uri()
    assert cov["summary"]["overall"] == expected["coverage"]["overall"]
    assert cov["summary"]["target"] == 95
    for metric, counts in expected["coverage"]["counts"].items():
        got = cov["summary"]["metrics"][metric]
        assert (got["covered"], got["total"]) == (counts["covered"], counts["total"])
        assert got["percent"] == expected["coverage"]["metrics"][metric]
    assert cov["holes"] == len(expected["uncovered"])
    assert [f["uri"] for f in cov["files"]] == [uri]
    uncovered = {(p["line"], p["kind"]) for p in cov["files"][0]["points"] if p["count"] == 0}
    assert uncovered == {(u["line"], u["kind"]) for u in expected["uncovered"]}
    assert cov["lcovPath"] == str(session.workspace / ".benchwright" / "coverage" / "traffic_light.info")
    assert Path(cov["lcovPath"]).read_text().startswith("TN:")

    tokens = [t for t, reports in session.client.progress_reports.items()
              if reports and getattr(reports[0], "title", "").startswith("Benchwright: simulating")]
    assert len(tokens) == 1
    kinds = [r.kind for r in session.client.progress_reports[tokens[0]]]
    assert kinds[0] == "begin"
    assert kinds[-1] == "end"
    assert session.client.progress_reports[tokens[0]][0].cancellable is True

    lenses = await session.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert lenses is not None
    assert len(lenses) == 1
    pct = expected["coverage"]["metrics"]
    title = (f"line {pct['line']:.0f} % · branch {pct['branch']:.0f} % · toggle {pct['toggle']:.0f} % · "
             f"expr {pct['expr']:.0f} % · {len(expected['uncovered'])} holes · Improve coverage")
    assert lenses[0].command is not None
    assert lenses[0].command.title == title
    assert lenses[0].command.command == "benchwright.improveCoverage"
    assert lenses[0].range.start.line == 2  # `module traffic_light #(`

    hints = session.client.diagnostics[uri]
    hint = next(d for d in hints if d.source == "benchwright")
    assert hint.severity == types.DiagnosticSeverity.Hint
    assert hint.code == "uncovered"
    actions = await session.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=hint.range,
        context=types.CodeActionContext(diagnostics=[hint])))
    assert actions is not None
    assert actions[0].title == "Improve coverage for this module"

    report = await session.command("benchwright.showReport", uri)
    assert "# traffic_light: ok" in report["markdown"]
    assert f"{expected['coverage']['overall']:.2f} %" in report["markdown"]
    doctor = await session.command("benchwright.doctor")
    assert "Verilator 5." in doctor["text"]
    assert "[build]" in doctor["text"]
    assert "[lint]" in doctor["text"]
    states = [s["state"] for s in session.recorder.status]
    assert "simulating" in states
    assert states[-1] == "idle"


async def test_newer_save_cancels_the_running_simulation(session: Session) -> None:
    uri = session.open(rtl(session))
    text = rtl(session).read_text()
    rtl(session).write_text(text + "// first edit\n")  # a real change: forces a rebuild
    session.change(uri, text + "// first edit\n", version=2)
    session.save(uri)
    await asyncio.sleep(0.3)
    rtl(session).write_text(text + "// second edit\n")
    session.change(uri, text + "// second edit\n", version=3)
    session.save(uri)
    cov = await session.recorder.next_coverage(1)
    await asyncio.sleep(1.0)
    assert [c["version"] for c in session.recorder.coverage] == [3]
    assert cov["status"] == "ok"


async def test_improve_coverage_applies_an_edit_that_raises_coverage(session: Session) -> None:
    uri = session.open(rtl(session))
    session.save(uri)
    before = (await session.recorder.next_coverage(1))["summary"]["overall"]

    result = await session.command("benchwright.improveCoverage", uri)
    assert result["applied"] is True, result
    assert result["testbenchUri"] == tb(session).as_uri()
    assert result["overall"] > before
    assert len(session.recorder.edits) == 1
    changes = session.recorder.edits[0].edit.document_changes
    assert changes is not None
    assert len(changes) == 1
    edit = changes[0]
    assert isinstance(edit, types.TextDocumentEdit)
    assert edit.text_document.uri == tb(session).as_uri()
    new_text = edit.edits[0].new_text
    assert "module tb_traffic_light" in new_text
    assert "traffic_light dut" in new_text
    assert tb(session).read_text() != new_text  # the server never writes the file itself
    published = await session.recorder.next_coverage(2)
    assert published["summary"]["overall"] == result["overall"]
    assert published["testbenchUri"] == tb(session).as_uri()

    # The client applies and saves the edit: simulating it as the design's test agrees.
    tb(session).write_text(new_text)
    tb_uri = session.open(tb(session))
    session.save(tb_uri)
    after = await session.recorder.next_coverage(3)
    assert after["status"] == "ok"
    assert after["summary"]["overall"] == result["overall"]


async def test_cancelled_improve_publishes_nothing(workspace: Path, cache_dir: Path) -> None:
    options = {"benchwright": {"lint": {"debounceMs": 0}, "policy": {"rounds": 3, "simCalls": 400}}}
    session, stop = await start_session(workspace, cache_dir, options)
    try:
        uri = session.open(rtl(session))
        task = asyncio.create_task(session.command("benchwright.improveCoverage", uri))

        async def episode_token() -> str:
            while True:
                for token, reports in session.client.progress_reports.items():
                    if reports and getattr(reports[0], "title", "").startswith("Benchwright: improving"):
                        return str(token)
                await asyncio.sleep(0.05)

        token = await asyncio.wait_for(episode_token(), 30)
        await asyncio.sleep(1.5)  # well inside the episode
        session.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
        result = await asyncio.wait_for(task, 60)
        assert result["cancelled"] is True
        assert result["applied"] is False
        await asyncio.sleep(1.0)
        assert session.recorder.edits == []
        assert session.recorder.coverage == []
        assert session.client.progress_reports[token][-1].kind == "end"
    finally:
        await stop()


async def test_bad_settings_show_a_message_and_the_server_stays_up(workspace: Path, cache_dir: Path) -> None:
    options = {"benchwright": {"lint": {"debounceMs": "soon"}, "coverage": {"metrics": ["fsm"]}}}
    configuration = {"benchwright": {"policy": {"backend": "gpt"}}}
    session, stop = await start_session(workspace, cache_dir, options, configuration)
    try:
        rtl_path = workspace / "traffic_light" / "rtl" / "traffic_light.sv"
        uri = session.open(rtl_path, broken(rtl_path.read_text()))
        diags = await session.diagnostics(uri, version=1)
        assert any(d.severity == types.DiagnosticSeverity.Error for d in diags)
        messages = [m for m in session.client.messages if "invalid settings" in m.message]
        assert len(messages) == 1, session.client.messages
        for key in ("benchwright.lint.debounceMs", "benchwright.coverage.metrics", "benchwright.policy.backend"):
            assert key in messages[0].message
        assert messages[0].type == types.MessageType.Warning
        doctor = await session.command("benchwright.doctor")
        assert "policy       heuristic" in doctor["text"]  # the invalid backend fell back to its default
    finally:
        await stop()


async def test_watched_file_change_resimulates(session: Session) -> None:
    text = tb(session).read_text().replace("repeat (60)", "repeat (200)")
    tb(session).write_text(text)
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=tb(session).as_uri(), type=types.FileChangeType.Changed)]))
    cov = await session.recorder.next_coverage(1)
    assert cov["version"] is None
    assert cov["status"] == "ok"
    assert any(r.register_options and "watchers" in r.register_options
               for reg in session.recorder.registrations for r in reg.registrations)


async def test_exit_during_a_simulation_is_prompt(workspace: Path, cache_dir: Path) -> None:
    """`exit` while a build runs: the job is killed and the process ends at once. Its progress end,
    sent after stdout closed, once made pygls report the failed send, fail again, and loop."""
    session, stop = await start_session(workspace, cache_dir, {"benchwright": {"lint": {"debounceMs": 0}}})
    path = rtl(session)
    path.write_text(path.read_text() + f"// {uuid.uuid4().hex}\n")  # a new build: still running at exit
    uri = session.open(path)
    session.save(uri)
    await session.status_where(lambda s: s["state"] == "simulating")
    await asyncio.sleep(1.0)
    start = time.monotonic()
    try:
        await asyncio.wait_for(stop(), 30)
    finally:
        server = session.client._server
        if server is not None and server.returncode is None:
            server.kill()
    assert time.monotonic() - start < 30
    assert session.recorder.coverage == []


async def test_the_lint_shadow_folder_goes_with_the_server(workspace: Path, cache_dir: Path, tmp_path: Path) -> None:
    # Each server keeps unsaved buffers in a private temporary folder; one was left per editor session.
    temp = tmp_path / "tmp"
    temp.mkdir()
    session, stop = await start_session(workspace, cache_dir, {"benchwright": {"lint": {"debounceMs": 0}}},
                                        extra_env={"TMPDIR": str(temp)})
    try:
        path = rtl(session)
        await session.diagnostics(session.open(path, path.read_text() + "\n"))
        assert [p.name.startswith("benchwright-lsp-") for p in temp.iterdir()] == [True]
    finally:
        await asyncio.wait_for(stop(), 30)
    server = session.client._server
    assert server is not None
    await asyncio.wait_for(server.wait(), 30)
    assert list(temp.iterdir()) == []


async def test_ambiguous_top_is_announced_once_then_the_picked_top_simulates(tmp_path: Path, cache_dir: Path) -> None:
    # Two UARTs share a FIFO and nothing ties either to a top: opening the FIFO must ask which
    # one (the editor's picker), once; with the pick in the settings, saving simulates that top.
    ws = tmp_path / "two_tops"
    shutil.copytree(REPO / "tests" / "data" / "sim" / "project" / "two_tops", ws)
    fifo = ws / "rtl" / "fifo.v"
    session, stop = await start_session(ws, cache_dir)
    try:
        uri = session.open(fifo)
        await first_where(session.recorder.ambiguous, lambda _: True, 60)
        (sent,) = session.recorder.ambiguous
        assert sent["uri"] == uri
        assert [c["name"] for c in sent["candidates"]] == ["uart_a", "uart_b"]
        assert {c["uri"] for c in sent["candidates"]} == {(ws / "rtl" / f"{n}.v").as_uri() for n in ("uart_a", "uart_b")}
        assert sent["setting"] == "benchwright.project.top"
        assert "uart_a (uart_a.v:1)" in sent["message"]
        assert "uart_b (uart_b.v:1)" in sent["message"]
        session.save(uri)
        await asyncio.sleep(2.0)
        assert len(session.recorder.ambiguous) == 1, "the same ambiguity was announced twice"
        # Until a top is picked, saving neither simulates nor has the engine write a testbench for the FIFO alone.
        assert session.recorder.coverage == []
        assert any("modules could be its top (uart_a, uart_b); pick one" in m.message
                   for m in session.client.log_messages)
        assert not (ws / ".benchwright" / "generated").exists()
    finally:
        await stop()
    picked = {"benchwright": {"project": {"top": "uart_b"}}}
    session, stop = await start_session(ws, cache_dir, configuration=picked)
    try:
        uri = session.open(fifo)
        await session.diagnostics(uri, version=1, timeout=120)  # linted: the workspace is indexed
        session.save(uri)
        cov = await session.recorder.next_coverage(1, timeout=240)
        assert cov["status"] == "ok", cov
        assert cov["top"] == "uart_b"
        assert cov["testbenchUri"] == (ws / "tb" / "tb_uart_b.v").as_uri()
        assert session.recorder.ambiguous == []
    finally:
        await stop()

