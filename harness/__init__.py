"""hanabi-eval: a reproducible harness in which LLM agents play the cooperative card game Hanabi."""

import os

from harness.native import activate

# LiteLLM downloads a price list when imported unless told not to; whichever module imports it first, it must not.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# LiteLLM sets its log level once, when imported: only errors, or its warnings reach the user's terminal.
os.environ.setdefault("LITELLM_LOG", "ERROR")
# The compiled build of the smart bot and the view builder, where one was built from the source on disk
# (harness/native); else the source, as ever.
activate()

__version__ = "0.1.0"
