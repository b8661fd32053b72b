"""hanabi-eval: a reproducible harness in which LLM agents play the cooperative card game Hanabi."""

import os

# LiteLLM downloads a price list when imported unless told not to; whichever module imports it first, it must not.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# LiteLLM sets its log level once, when imported: only errors, or its warnings reach the user's terminal.
os.environ.setdefault("LITELLM_LOG", "ERROR")

__version__ = "0.1.0"


def compiled_modules() -> list[str]:
    """The modules of this harness package that run compiled: the C extensions in its folders, which Python imports
    before the source beside them. A wheel or `pip install .` compiles pyproject.toml's [tool.hanabi-eval] modules
    with mypyc where it can (setup.py); an editable install compiles none, so an edit always runs."""
    from importlib.machinery import EXTENSION_SUFFIXES
    from pathlib import Path

    root = Path(__file__).parent
    files = [file for file in root.rglob("*") if file.name.endswith(tuple(EXTENSION_SUFFIXES))]
    return sorted(".".join(["harness", *f.parent.relative_to(root).parts, f.name.split(".")[0]]) for f in files)
