"""The LLM policies: prompts and strict parsing (shared with training), backends (llama.cpp, OpenAI), models.

`completion` holds the types every backend returns; `policy` picks a backend lazily. May import `agent.policy` and `sim`.
"""

from __future__ import annotations
