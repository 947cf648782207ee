"""Fan simulation jobs out: a local process pool, or Ray when an address is given.

`fan_out(fn, items)` returns `[fn(x) for x in items]` in input order whichever backend
runs it, so stage outputs are identical with and without Ray (every job is seeded by
its own inputs, never by which worker ran it).
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")

LOCAL_RAY = "local"
"""Address meaning: start a private local Ray instance with `workers` CPUs."""


def fan_out(fn: Callable[[T], R], items: Sequence[T], *, workers: int = 1, ray_address: str = "") -> list[R]:
    """Run `fn` on every item; results in input order.

    Args:
        fn: a module-level (picklable) function.
        items: picklable inputs.
        workers: local pool size (1 runs in this process) or Ray CPUs for `local`.
        ray_address: '' for the process pool; `local`, `auto` or `ray://...` for Ray.
    """
    if not items:
        return []
    if ray_address:
        return _ray_map(fn, items, ray_address, workers)
    if workers <= 1 or len(items) == 1:
        return [fn(x) for x in items]
    # spawn, not fork: the parent may hold torch / llama.cpp threads that a fork would copy.
    ctx = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=min(workers, len(items)), mp_context=ctx)
    try:
        results = list(pool.map(fn, items))
    except BaseException:
        # Do not wait for the queued jobs of a stage that has already failed.
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return results


def _ray_map(fn: Callable[[T], R], items: Sequence[T], address: str, workers: int) -> list[R]:
    """The Ray backend: one task per item, gathered in order."""
    import os

    try:
        import ray
    except ImportError as exc:
        raise RuntimeError(f"--ray {address} needs Ray (pip install .[ray]): {exc}") from exc
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    started = False
    if not ray.is_initialized():
        if address == LOCAL_RAY:
            ray.init(num_cpus=max(1, workers), include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
        started = True
    try:
        remote: Any = ray.remote(num_cpus=1)(fn)
        refs = [remote.remote(x) for x in items]
        return list(ray.get(refs))
    finally:
        if started and address == LOCAL_RAY:
            ray.shutdown()
