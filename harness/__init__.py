"""hanabi-eval: a reproducible harness in which LLM agents play the cooperative card game Hanabi."""

import os

# LiteLLM downloads a price list when imported unless told not to; whichever module imports it first, it must not.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"
