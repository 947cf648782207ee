"""Fixtures that start the real server process over stdio (pytest-lsp) on a copied workspace."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsp_session import EXAMPLE, Session, start_session


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One build cache for the server tests (isolated from the user's)."""
    return tmp_path_factory.mktemp("bw-cache")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace folder holding a copy of the traffic_light example."""
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws / "traffic_light")
    return ws


@pytest_asyncio.fixture
async def session(workspace: Path, cache_dir: Path) -> AsyncIterator[Session]:
    """A server on the traffic_light workspace: no debounce, a small heuristic budget."""
    options = {"benchwright": {"lint": {"debounceMs": 0}, "policy": {"rounds": 0, "simCalls": 12}}}
    sess, stop = await start_session(workspace, cache_dir, options)
    yield sess
    await stop()


