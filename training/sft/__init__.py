"""LoRA SFT with transformers + peft: the training loop, the tiny in-code model, a GGUF loaded as a base.

May import `training.data` (chat records) and the shared `training` modules.
"""

from __future__ import annotations
