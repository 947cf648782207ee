from __future__ import annotations

import os

import pytest

from training.data.sampler import SampledState, select_states
from training.fanout import fan_out


def groups() -> list[list[SampledState]]:
    """Per-design state lists: the workers run the real (seeded) sampler on them."""
    out = []
    for d in range(6):
        out.append([SampledState(f"d{d}", f"k{i}", f"tb{d}-{i}", "ok" if i % 3 else "compile_error", 10.0 * i + d)
                    for i in range(8)])
    return out


def test_inline_and_pool_agree() -> None:
    items = groups()
    inline = fan_out(select_states, items, workers=1)
    assert inline == [select_states(x) for x in items]
    assert fan_out(select_states, items, workers=2) == inline
    assert fan_out(select_states, [], workers=2) == []


def test_ray_and_pool_agree() -> None:
    try:
        import ray  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"ray is not installed ({exc}); pip install .[ray] to run the Ray fan-out test")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    items = groups()
    pool = fan_out(select_states, items, workers=2)
    assert fan_out(select_states, items, workers=2, ray_address="local") == pool
