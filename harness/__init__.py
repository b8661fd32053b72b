"""hanabi-eval: a reproducible harness in which LLM agents play the cooperative card game Hanabi."""

__version__ = "0.1.0"
