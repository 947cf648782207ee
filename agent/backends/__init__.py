"""Completion backends for the LLM policies; each imports its heavy library lazily."""

from __future__ import annotations

BACKENDS: dict[str, str] = {
    "llama": "agent.backends.llama_backend:LlamaBackend",
    "openai": "agent.backends.openai_backend:OpenAIBackend",
}
"""Backend name -> dotted path of its class (imported only when used)."""
