"""Accept new behaviour: record a kept testbench's checks again after an intended RTL change.

On save the server re-runs the project's testbench; when its recorded checks fail, the outputs
that changed get warnings with this code action. Accepting re-records the signatures from the
design as it is now (the stimulus stays the same) and offers the result as one undoable edit of
the testbench file; once it is applied and saved, the simulation on save passes and the warnings go.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types

from agent.check_cli import rerecord
from server import convert
from server import protocol as p
from server.outcomes import sim_options
from server.server import BenchwrightServer
from server.service import runnable_project
from server.simulation import current_testbench
from sim.errors import SimError


async def accept_behaviour(ls: BenchwrightServer, uri: str) -> p.ProposalResult:
    """Re-record the project's testbench checks and offer them as a WorkspaceEdit; then simulate again."""
    ready = await runnable_project(ls, uri)
    if isinstance(ready, p.ProposalResult):
        return ready
    settings, project = ready
    # The testbench a save simulates (whose failed checks are the warnings): a kept testbench the
    # user put in the repository is often its own (found in tb/ of an inferred design, or declared
    # as design.toml's human test), and it carries its checks just as well.
    tb = current_testbench(ls, project, settings)
    if tb is None or tb.kind not in ("sv", "generated", "human") or len(tb.files) != 1 \
            or tb.path.suffix not in (".sv", ".v"):
        return p.ProposalResult(applied=False, message="no single-file SystemVerilog testbench with checks to record")
    path = tb.files[0]
    tb_uri = convert.uri_of(path)
    doc = ls.workspace.text_documents.get(tb_uri)
    old = doc.source if doc is not None else path.read_text(errors="replace")
    try:
        new = await asyncio.get_running_loop().run_in_executor(
            ls.jobs.executor, rerecord, project.design, old, sim_options(settings))
    except (SimError, OSError) as exc:
        ls.log(f"Benchwright: accept new behaviour: {exc}", types.MessageType.Error)
        return p.ProposalResult(applied=False, message=str(exc))
    edit = convert.lsp_testbench_edit(tb_uri, new, old, doc.version if doc is not None else None)
    label = f"Benchwright: record the checks of {path.name} again ({project.design.name})"
    answer = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label=label))
    if not answer.applied:
        return p.ProposalResult(applied=False, testbench_uri=tb_uri,
                                message=answer.failure_reason or "the edit was not applied")
    # Reviewed and saved like any edit: saving the testbench simulates it again (and clears the warnings).
    return p.ProposalResult(applied=True, testbench_uri=tb_uri, message="checks recorded again: save the testbench")
