"""Compatibility aliases that let cocotb 1.x-era human tests import under cocotb 2.x.

Put on PYTHONPATH only for *human* (trusted, collected) cocotb suites: cocotb 2 moved
`cocotb.runner` to `cocotb_tools.runner`; tests that import it at module level would
otherwise fail before running a single test.
"""

from __future__ import annotations

import contextlib
import importlib
import sys

with contextlib.suppress(ImportError):
    sys.modules.setdefault("cocotb.runner", importlib.import_module("cocotb_tools.runner"))
